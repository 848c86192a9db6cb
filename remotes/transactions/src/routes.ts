import './zod-config';
import type { RemoteManifest } from '@paygate/sdk';
import { CallbacksPage } from './features/callbacks/components/callbacks-page';
import { CreateTransactionPage } from './features/simulate/components/create-transaction-page';
import { TransactionsPage } from './features/transactions/components/transactions-page';
import { ValidationEndpointsPage } from './features/validation-endpoints/components/validation-endpoints-page';

/** The screens of the transactions remote, exposed as `./routes`. */
const manifest: RemoteManifest = {
  name: 'transactions',
  routes: [
    { path: '/transactions/:id?', Component: TransactionsPage },
    { path: '/callbacks', Component: CallbacksPage },
    { path: '/validation-endpoints', Component: ValidationEndpointsPage },
    { path: '/simulate-payment', Component: CreateTransactionPage },
  ],
};

export default manifest;
