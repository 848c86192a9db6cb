import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { consoleConfig } from '@paygate/devkit/webpack';

export default consoleConfig({
  kind: 'host',
  name: 'shell',
  dir: path.dirname(fileURLToPath(import.meta.url)),
  port: Number(process.env.PORT ?? 8080),
});
