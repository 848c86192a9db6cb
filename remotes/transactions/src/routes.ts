import './zod-config';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { AlertsPage } from './features/alerts/components/alerts-page';
import { CallbacksPage } from './features/callbacks/components/callbacks-page';
import { CreateTransactionPage } from './features/simulate/components/create-transaction-page';
import { FraudManagementPage } from './features/fraud/components/fraud-page';
import { RadarPage } from './features/radar/components/radar-page';
import { TransactionsPage } from './features/transactions/components/transactions-page';
import { ValidationEndpointsPage } from './features/validation-endpoints/components/validation-endpoints-page';

/**
 * The radar and Alerts are newer than some hosts this remote may run on (docs/console-releases.md
 * rule 4): the route table is the host's SDK, so each screen is offered only where the host's table
 * has it.
 */
const radar = (SCREENS as Partial<typeof SCREENS>).radar;
const alerts = (SCREENS as Partial<typeof SCREENS>).alerts;

/** The screens of the transactions remote, exposed as `./routes`. */
const manifest: RemoteManifest<'transactions'> = {
  name: 'transactions',
  routes: [
    { path: SCREENS.transactions.path, Component: TransactionsPage },
    { path: SCREENS.callbacks.path, Component: CallbacksPage },
    { path: SCREENS.validationEndpoints.path, Component: ValidationEndpointsPage },
    { path: SCREENS.simulatePayment.path, Component: CreateTransactionPage },
    { path: SCREENS.fraudManagement.path, Component: FraudManagementPage },
    ...(radar ? [{ path: radar.path, Component: RadarPage }] : []),
    ...(alerts ? [{ path: alerts.path, Component: AlertsPage }] : []),
  ],
};

export default manifest;
