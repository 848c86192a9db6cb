// Webpack configuration shared by the console host (shell/) and every remote
// (remotes/<name>/): TypeScript through esbuild-loader (type checking is
// `npm run typecheck`), Module Federation with the shared singletons, and a
// dev server for standalone work against a real backend.
import CopyPlugin from 'copy-webpack-plugin';
import { EsbuildPlugin } from 'esbuild-loader';
import HtmlWebpackPlugin from 'html-webpack-plugin';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import ts from 'typescript';
import webpack from 'webpack';

const shellDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(shellDir, '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Script chunk load timeout, spec 01 §9. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

/** The packages every container shares as singletons; versions come from the package's package.json. */
const SINGLETONS = ['react', 'react-dom', 'react-router', '@chakra-ui/react', '@emotion/react', '@tanstack/react-query'];

/**
 * Shared libraries whose shared module, in production, is a facade exporting only the names the
 * workspace imports from them. A shared module is never tree-shaken (webpack cannot know what
 * another container will use), so sharing all of Chakra UI shipped 1.19 MB to every page.
 */
const TRIMMED = ['@chakra-ui/react', 'react-router', '@tanstack/react-query'];

/** workspaceSources lists the source files of every workspace package (tests left out). */
function workspaceSources() {
  const patterns = readJson(path.join(repoDir, 'package.json')).workspaces ?? [];
  const dirs = patterns.flatMap((p) => {
    if (!p.endsWith('/*')) return [path.join(repoDir, p)];
    const parent = path.join(repoDir, p.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(parent, e.name));
  });
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(f);
      } else if (/\.[cm]?[jt]sx?$/.test(e.name) && !/\.(test|spec)\.[jt]sx?$/.test(e.name)) files.push(f);
    }
  };
  for (const d of dirs) if (existsSync(path.join(d, 'src'))) walk(path.join(d, 'src'));
  return files;
}

/**
 * importedNames returns, for each library in libs, the set of value names the workspace imports
 * or re-exports from it, or null for a library that some file imports whole (default, namespace
 * or `export *`), which then stays shared whole.
 */
function importedNames(libs, files = workspaceSources()) {
  const names = new Map(libs.map((l) => [l, new Set()]));
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    for (const st of source.statements) {
      if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
      const set = names.get(st.moduleSpecifier.text);
      if (!set) continue;
      let whole = false;
      if (ts.isImportDeclaration(st)) {
        const clause = st.importClause;
        if (!clause) continue; // import 'lib' for its side effects: the facade keeps the module's
        if (clause.isTypeOnly) continue;
        const bindings = clause.namedBindings;
        whole = Boolean(clause.name) || (bindings !== undefined && ts.isNamespaceImport(bindings));
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) if (!el.isTypeOnly) set.add((el.propertyName ?? el.name).text);
      } else if (!st.isTypeOnly) {
        const clause = st.exportClause;
        whole = !clause || ts.isNamespaceExport(clause);
        if (clause && ts.isNamedExports(clause)) for (const el of clause.elements) if (!el.isTypeOnly) set.add((el.propertyName ?? el.name).text);
      }
      if (whole) names.set(st.moduleSpecifier.text, null);
    }
  }
  return names;
}

/** The version of lib installed for dir. */
function installedVersion(lib, dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    const pkgFile = path.join(d, 'node_modules', lib, 'package.json');
    if (existsSync(pkgFile)) return readJson(pkgFile).version;
    if (d === path.dirname(d)) throw new Error(`${lib} is not installed for ${dir}`);
  }
}

/**
 * Packages a facade leaves to webpack: the other shared singletons (so the facade uses the
 * container's shared React and Emotion) and what they are made of.
 */
const FACADE_EXTERNALS = ['react', 'react/*', 'react-dom', 'react-dom/*', '@emotion/*'];

/**
 * trimmedShares builds one facade per TRIMMED library: the library bundled by esbuild down to the
 * names the whole workspace uses (esbuild's bundler drops the unused code that webpack's
 * minifier keeps). Every container provides the same facade, so whichever container's copy the
 * share scope picks serves every other container's imports.
 */
function trimmedShares(name, dir) {
  const esbuild = createRequire(createRequire(import.meta.url).resolve('esbuild-loader'))('esbuild');
  const out = path.join(repoDir, 'node_modules', '.cache', 'paygate-shared', name);
  mkdirSync(out, { recursive: true });
  const shares = {};
  for (const [lib, set] of importedNames(TRIMMED)) {
    if (!set || set.size === 0) continue;
    const file = path.join(out, `${lib.replace(/[^a-z0-9]+/gi, '_')}.js`);
    esbuild.buildSync({
      stdin: { contents: `export { ${[...set].sort().join(', ')} } from ${JSON.stringify(lib)};`, resolveDir: dir, loader: 'js' },
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
    shares[lib] = { import: `${FACADE_PREFIX}${lib}`, version: installedVersion(lib, dir), file };
  }
  return shares;
}

/**
 * Facades are imported by a bare name aliased to their file: a path in a shared `import` would be
 * provided in every compilation, html-webpack-plugin's child compilation included, which then
 * emits a second copy of each library.
 */
const FACADE_PREFIX = 'paygate-shared-facade/';

function shared(pkg, trimmed) {
  const deps = pkg.dependencies ?? {};
  const entries = SINGLETONS.map((lib) => {
    if (!deps[lib]) throw new Error(`${pkg.name}: shared package ${lib} is missing from dependencies`);
    const facade = trimmed[lib] ? { import: trimmed[lib].import, version: trimmed[lib].version } : {};
    return [lib, { singleton: true, requiredVersion: deps[lib], ...facade }];
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
    const trimmed = dev ? {} : trimmedShares(name, dir);

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
          shared: shared(pkg, trimmed),
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
