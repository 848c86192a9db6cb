import './zod-config';
import type { RemoteManifest } from '@paygate/sdk';
import { MerchantsPage } from './features/merchants/components/merchants-page';
import { ProvidersPage } from './features/providers/components/providers-page';

/** The screens of the providers remote, exposed as `./routes`. */
const manifest: RemoteManifest = {
  name: 'providers',
  routes: [
    { path: '/providers', Component: ProvidersPage },
    { path: '/merchants', Component: MerchantsPage },
  ],
};

export default manifest;
