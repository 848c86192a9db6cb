import './zod-config';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { FilesPage } from './features/files/components/files-page';

/** The screens of the files remote, exposed as `./routes`. */
const manifest: RemoteManifest<'files'> = {
  name: 'files',
  routes: [{ path: SCREENS.files.path, Component: FilesPage }],
};

export default manifest;
