// Webpack configuration shared by the console host (shell/) and every remote
// (remotes/<name>/): TypeScript through esbuild-loader (type checking is
// `npm run typecheck`), Module Federation with the shared singletons, and a
// dev server for standalone work against a real backend.
import CopyPlugin from 'copy-webpack-plugin';
import { EsbuildPlugin } from 'esbuild-loader';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import webpack from 'webpack';

const shellDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(shellDir, '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Script chunk load timeout, spec 01 §9. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

/** The packages every container shares as singletons; versions come from the package's package.json. */
const SINGLETONS = ['react', 'react-dom', 'react-router', '@chakra-ui/react', '@emotion/react', '@tanstack/react-query'];

function shared(pkg) {
  const deps = pkg.dependencies ?? {};
  const entries = SINGLETONS.map((name) => {
    if (!deps[name]) throw new Error(`${pkg.name}: shared package ${name} is missing from dependencies`);
    return [name, { singleton: true, requiredVersion: deps[name] }];
  });
  const sdk = readJson(path.join(shellDir, 'sdk', 'package.json'));
  return Object.fromEntries([
    ...entries,
    // The JSX runtime belongs to react: same version, one copy.
    ['react/jsx-runtime', { singleton: true, requiredVersion: deps.react }],
    ['react-dom/client', { singleton: true, requiredVersion: deps['react-dom'] }],
    [sdk.name, { singleton: true, version: sdk.version, requiredVersion: deps[sdk.name] ?? sdk.version }],
  ]);
}

/**
 * consoleConfig builds the webpack configuration of one console package.
 * kind 'host': the shell; kind 'remote': a remote exposing ./routes
 * (and, in development, the standalone console around it).
 */
export function consoleConfig({ kind, name, dir, port }) {
  return (_env, argv) => {
    const dev = argv.mode !== 'production';
    const pkg = readJson(path.join(dir, 'package.json'));
    const remote = kind === 'remote';
    const withPage = !remote || dev;
    const require = createRequire(import.meta.url);
    const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

    return {
      mode: dev ? 'development' : 'production',
      context: dir,
      entry: withPage ? { main: './src/index.ts' } : {},
      devtool: dev ? 'eval-cheap-module-source-map' : false,
      output: {
        path: path.join(dir, 'dist'),
        // 'auto' resolves chunks next to the remote entry, wherever config.json points.
        publicPath: remote ? 'auto' : '/',
        filename: dev ? '[name].js' : 'assets/[name].[contenthash:8].js',
        chunkFilename: dev ? '[name].js' : 'assets/[name].[contenthash:8].js',
        chunkLoadTimeout: CHUNK_LOAD_TIMEOUT_MS,
        uniqueName: `paygate_${name}`,
        clean: true,
      },
      resolve: {
        extensions: ['.tsx', '.ts', '.js'],
        alias: { '@paygate/gen': path.join(repoDir, 'gen', 'ts', 'paygate') },
      },
      module: {
        rules: [
          {
            test: /\.[jt]sx?$/,
            exclude: /node_modules/,
            loader: 'esbuild-loader',
            options: { loader: 'tsx', target: 'es2020', jsx: 'automatic' },
          },
        ],
      },
      // The REST reference's files under docs/ are copied as published, not minified again.
      optimization: { minimizer: [new EsbuildPlugin({ target: 'es2020', exclude: /^docs\// })] },
      performance: { hints: false },
      plugins: [
        new webpack.container.ModuleFederationPlugin({
          name: `paygate_${name}`,
          ...(remote
            ? {
                filename: 'remoteEntry.js',
                // window, not var: the minifier wraps the file, and the host looks the container up on window.
                library: { type: 'window', name: `paygate_${name}` },
                exposes: { './routes': './src/routes.ts' },
              }
            : {}),
          shared: shared(pkg),
        }),
        ...(withPage
          ? [
              new HtmlWebpackPlugin({
                template: path.join(shellDir, 'public', 'index.html'),
                chunks: ['main'],
                // Absolute, so deep links (/transactions/42) load the same script.
                publicPath: '/',
              }),
            ]
          : []),
        ...(remote
          ? []
          : [
              new CopyPlugin({
                patterns: [
                  { from: path.join(shellDir, 'public'), filter: (file) => file !== path.join(shellDir, 'public', 'index.html') },
                  { from: path.join(repoDir, 'gen', 'openapi', 'paygate.swagger.json'), to: 'docs/' },
                  ...['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'].map((f) => ({
                    from: path.join(swaggerDir, f),
                    to: 'docs/',
                  })),
                ],
              }),
            ]),
      ],
      devServer: {
        port,
        historyApiFallback: { disableDotRule: true },
        headers: remote ? { 'Access-Control-Allow-Origin': '*' } : {},
        static: [
          { directory: path.join(shellDir, 'public'), publicPath: '/' },
          // The host serves the built remotes where config.json expects them.
          ...(remote
            ? []
            : ['transactions', 'providers', 'files', 'security'].map((r) => ({
                directory: path.join(repoDir, 'remotes', r, 'dist'),
                publicPath: `/remotes/${r}`,
              }))),
        ],
        client: { overlay: { warnings: false } },
      },
      stats: 'errors-warnings',
    };
  };
}
