import './zod-config';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { FeesPage } from './features/fees/components/fees-page';
import { JobsPage } from './features/jobs/components/jobs-page';
import { BalancesPage } from './features/balances/components/balances-page';
import { CredentialsPage } from './features/credentials/components/credentials-page';
import { MerchantsPage } from './features/merchants/components/merchants-page';
import { ProvidersScreen } from './app/providers-screen';
import { SettingsPage } from './features/settings/components/settings-page';

/** The screens of the providers remote, exposed as `./routes`. */
const manifest: RemoteManifest<'providers'> = {
  name: 'providers',
  routes: [
    { path: SCREENS.providers.path, Component: ProvidersScreen },
    { path: SCREENS.merchants.path, Component: MerchantsPage },
    { path: SCREENS.jobs.path, Component: JobsPage },
    { path: SCREENS.settings.path, Component: SettingsPage },
    { path: SCREENS.fees.path, Component: FeesPage },
    { path: SCREENS.credentials.path, Component: CredentialsPage },
    { path: SCREENS.balances.path, Component: BalancesPage },
  ],
};

export default manifest;
