import './zod-config';
import type { ExposedModule } from '@paygate/sdk';
import { ExportWizard } from './features/export/components/export-wizard';

/**
 * The "Export Transactions" wizard, exposed as `./export-wizard` for the
 * transactions page (which loads it with the SDK's loadRemoteModule).
 */
const wizard: ExposedModule<'files', './export-wizard'>['default'] = ExportWizard;

export default wizard;
