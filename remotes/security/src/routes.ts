import './zod-config';
import type { RemoteManifest } from '@paygate/sdk';
import { ChangePasswordPage } from './features/change-password/components/change-password-page';

/** The screens of the security remote, exposed as `./routes`. */
const manifest: RemoteManifest = {
  name: 'security',
  routes: [{ path: '/change-password', Component: ChangePasswordPage }],
};

export default manifest;
