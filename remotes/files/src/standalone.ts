import { mountConsole } from '@paygate/devkit/console';

// Standalone development: the whole console, with this remote's screens
// built in and the other remotes loaded as configured in /config.json.
const element = document.getElementById('root');
if (!element) throw new Error('index.html has no #root element');
void mountConsole(element, {
  localRemotes: { files: () => import('./routes') },
  localModules: { files: { './export-wizard': () => import('./export-wizard') } },
});
