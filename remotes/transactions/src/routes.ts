import type { RemoteManifest } from '@paygate/sdk';
import { CreateTransactionPage } from './features/simulate/components/create-transaction-page';
import { TransactionsPage } from './features/transactions/components/transactions-page';

/** The screens of the transactions remote, exposed as `./routes`. */
const manifest: RemoteManifest = {
  name: 'transactions',
  routes: [
    { path: '/transactions/:id?', Component: TransactionsPage },
    { path: '/simulate-payment', Component: CreateTransactionPage },
  ],
};

export default manifest;
