import type { RemoteManifest } from '@paygate/sdk';

/** The screens of the files remote, exposed as `./routes`; none is built yet. */
const manifest: RemoteManifest<'files'> = {
  name: 'files',
  routes: [],
};

export default manifest;
