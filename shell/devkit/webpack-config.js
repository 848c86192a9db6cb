// Webpack configuration shared by the console host (shell/) and every remote
// (remotes/<name>/): TypeScript through esbuild-loader (type checking is
// `npm run typecheck`), Module Federation with the shared singletons, and a
// dev server for standalone work against a real backend.
import CopyPlugin from 'copy-webpack-plugin';
import { EsbuildPlugin } from 'esbuild-loader';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import webpack from 'webpack';
import { containerSources, FACADES, facadeVersion, importedNames, readList, requiredRange, sourceFiles, unlisted, workspaceSources } from './shared.js';

const shellDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(shellDir, '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Script chunk load timeout, spec 01 §9. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

/** The packages every container shares as singletons; versions come from the package's package.json. */
const SINGLETONS = ['react', 'react-dom', 'react-router', '@chakra-ui/react', '@emotion/react', '@tanstack/react-query'];

/**
 * Shared libraries whose shared module is a facade exporting the names of a kept, versioned list
 * (shared.js, shared/<library>.json). A shared module is never tree-shaken (webpack cannot know what
 * another container will use), so sharing all of Chakra UI shipped 1.19 MB to every page.
 */
const TRIMMED = Object.keys(FACADES);

/** The SDK's package name: shared whole, at the version of its export list (shared/paygate-sdk.json). */
const SDK = '@paygate/sdk';

/**
 * Packages a facade leaves to webpack: the other shared singletons (so the facade uses the
 * container's shared React and Emotion) and what they are made of.
 */
const FACADE_EXTERNALS = ['react', 'react/*', 'react-dom', 'react-dom/*', '@emotion/*'];

/**
 * facadeShares returns, per TRIMMED library, what the container provides and requires: the facade's
 * version (its list's last revision) and `^` the version of the newest revision holding a name the
 * container (its src/ and the SDK) imports. The build fails when the workspace imports a name its
 * list lacks.
 */
function facadeShares(dir) {
  const all = importedNames(TRIMMED, workspaceSources());
  const own = importedNames(TRIMMED, containerSources(dir));
  return Object.fromEntries(
    TRIMMED.map((lib) => {
      const list = readList(lib);
      const problem = unlisted(list, all.get(lib));
      if (problem) throw new Error(problem);
      return [lib, { list, version: facadeVersion(list), requiredVersion: requiredRange(list, own.get(lib)) }];
    }),
  );
}

/**
 * sdkShare returns the SDK's shared version (its export list's last revision) and what the
 * container built from dir requires of it: the newest revision holding a name its src/ imports.
 */
function sdkShare(dir) {
  const list = readList(SDK);
  const own = importedNames([SDK], sourceFiles(path.join(dir, 'src'))).get(SDK);
  return { version: facadeVersion(list), requiredVersion: requiredRange(list, own) };
}

/**
 * trimmedShares builds one facade per TRIMMED library: the library bundled by esbuild down to the
 * names of its list, every revision's (esbuild's bundler drops the unused code that webpack's
 * minifier keeps). Every container built from one list revision provides the same facade, so
 * whichever container's copy the share scope picks serves every other container's imports.
 */
function trimmedShares(name, dir, facades) {
  const esbuild = createRequire(createRequire(import.meta.url).resolve('esbuild-loader'))('esbuild');
  const out = path.join(repoDir, 'node_modules', '.cache', 'paygate-shared', name);
  mkdirSync(out, { recursive: true });
  const shares = {};
  for (const [lib, { list }] of Object.entries(facades)) {
    const names = list.revisions.flatMap((r) => r.names);
    const file = path.join(out, `${lib.replace(/[^a-z0-9]+/gi, '_')}.js`);
    esbuild.buildSync({
      stdin: { contents: `export { ${[...names].sort().join(', ')} } from ${JSON.stringify(lib)};`, resolveDir: dir, loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2020',
      external: FACADE_EXTERNALS,
      define: { 'process.env.NODE_ENV': '"production"' },
      legalComments: 'none',
      logLevel: 'error',
      outfile: file,
    });
    shares[lib] = { import: `${FACADE_PREFIX}${lib}`, file };
  }
  return shares;
}

/**
 * Facades are imported by a bare name aliased to their file: a path in a shared `import` would be
 * provided in every compilation, html-webpack-plugin's child compilation included, which then
 * emits a second copy of each library.
 */
const FACADE_PREFIX = 'paygate-shared-facade/';

/**
 * shared lists the container's shared modules. A facade library is provided at its list's version
 * and required strictly (`^` the newest revision the container uses): on a host whose list is older
 * than the container needs, loading the container fails with Module Federation's "Unsatisfied
 * version" instead of a missing export. In development the whole library is shared, at the list's
 * version too (it holds every listed name), so production remotes load into a development host.
 */
function shared(pkg, facades, trimmed, sdk, dev) {
  const deps = pkg.dependencies ?? {};
  const entries = SINGLETONS.map((lib) => {
    if (!deps[lib]) throw new Error(`${pkg.name}: shared package ${lib} is missing from dependencies`);
    const f = facades[lib];
    if (!f) return [lib, { singleton: true, requiredVersion: deps[lib] }];
    const facade = trimmed[lib] ? { import: trimmed[lib].import } : {};
    return [lib, { singleton: true, version: f.version, requiredVersion: f.requiredVersion, strictVersion: !dev, ...facade }];
  });
  if (!deps[SDK]) throw new Error(`${pkg.name}: shared package ${SDK} is missing from dependencies`);
  return Object.fromEntries([
    ...entries,
    // The JSX runtime belongs to react: same version, one copy.
    ['react/jsx-runtime', { singleton: true, requiredVersion: deps.react }],
    ['react-dom/client', { singleton: true, requiredVersion: deps['react-dom'] }],
    // The SDK, like a facade: provided at its list's version, required strictly in production.
    [SDK, { singleton: true, version: sdk.version, requiredVersion: sdk.requiredVersion, strictVersion: !dev }],
  ]);
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Precompress writes name.br and name.gz beside every text asset of the build, for servers that
 * send them as they are (deploy/devstack, the image's server deploy/images/console, serve.mjs).
 * config.json is left out: deployments replace it, and a stale compressed copy would win.
 */
class Precompress {
  apply(compiler) {
    compiler.hooks.thisCompilation.tap('Precompress', (compilation) => {
      compilation.hooks.processAssets.tapPromise(
        { name: 'Precompress', stage: webpack.Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER },
        async (assets) => {
          const work = Object.entries(assets)
            .filter(([file]) => /\.(js|css|html|json|svg|txt|map)$/.test(file) && file !== 'config.json')
            .map(async ([file, source]) => {
              const input = Buffer.from(source.buffer());
              const [br, gz] = await Promise.all([
                brotli(input, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: input.length } }),
                gzip(input, { level: 9 }),
              ]);
              // A copy no smaller than the original is not worth sending.
              if (br.length < input.length) compilation.emitAsset(`${file}.br`, new webpack.sources.RawSource(br));
              if (gz.length < input.length) compilation.emitAsset(`${file}.gz`, new webpack.sources.RawSource(gz));
            });
          await Promise.all(work);
        },
      );
    });
  }
}

/**
 * consoleConfig builds the webpack configuration of one console package.
 * kind 'host': the shell; kind 'remote': a remote exposing ./routes
 * (and, in development, the standalone console around it). `exposes` adds
 * the modules a remote exposes to other remotes, as the SDK's ExposedModules
 * contract lists them (e.g. `{ './export-wizard': './src/export-wizard.ts' }`).
 */
export function consoleConfig({ kind, name, dir, port, exposes = {} }) {
  return (_env, argv) => {
    const dev = argv.mode !== 'production';
    const pkg = readJson(path.join(dir, 'package.json'));
    const remote = kind === 'remote';
    const withPage = !remote || dev;
    const require = createRequire(import.meta.url);
    const swaggerDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
    const facades = facadeShares(dir);
    const trimmed = dev ? {} : trimmedShares(name, dir, facades);
    const sdk = sdkShare(dir);

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
        alias: {
          '@paygate/gen': path.join(repoDir, 'gen', 'ts', 'paygate'),
          ...Object.fromEntries(Object.values(trimmed).map((t) => [`${t.import}$`, t.file])),
        },
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
                exposes: { './routes': './src/routes.ts', ...exposes },
              }
            : {}),
          shared: shared(pkg, facades, trimmed, sdk, dev),
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
        ...(dev ? [] : [new Precompress()]),
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
