import type { RemoteManifest } from '@paygate/sdk';

/** The screens of the transactions remote, exposed as `./routes`; none is built yet. */
const manifest: RemoteManifest = {
  name: 'transactions',
  routes: [],
};

export default manifest;
