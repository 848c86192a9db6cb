import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleConfig } from '@paygate/devkit/webpack';

export default consoleConfig({
  kind: 'remote',
  name: 'files',
  dir: path.dirname(fileURLToPath(import.meta.url)),
  // Standalone work runs on the console origin the services allow (CORS).
  port: Number(process.env.PORT ?? 8080),
  // The Export Transactions wizard the transactions page opens (the SDK's ExposedModules).
  exposes: { './export-wizard': './src/export-wizard.ts' },
});
