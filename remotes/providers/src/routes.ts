import type { RemoteManifest } from '@paygate/sdk';

/** The screens of the providers remote, exposed as `./routes`; none is built yet. */
const manifest: RemoteManifest = {
  name: 'providers',
  routes: [],
};

export default manifest;
