import { Alert, Box, Button, HStack, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, notify, SCREENS, useTimezone, type ExportWizardProps } from '@paygate/sdk';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useExportTypes } from '../../../api/get-export-types';
import { useExportFile } from '../api/export-file';
import { useExportColumns } from '../api/get-export-columns';
import { activeFilters, cleanFilter, removeFilter, type ExportScope } from '../utils/active-filters';
import { mergeColumns, rememberColumns, rememberedColumns, toExportColumns, initialColumns, type ColumnSetting } from '../utils/column-settings';
import { pdfTooWide, type ExportFileType } from '../utils/file-types';
import { ColumnsStep } from './columns-step';
import { FiltersStep } from './filters-step';
import { FormatStep } from './format-step';

/** After an export started, the user goes to /files after this delay (spec 02 §9). */
export const REDIRECT_MS = 2_000;

const STEPS = ['Filters', 'Format', 'Columns'] as const;

type Phase = 'editing' | 'exporting' | 'started';

/**
 * ExportWizard is the "Export Transactions" dialog (spec 02 §2 "Export
 * dialog"), exposed to the transactions page as `./export-wizard`: step 1
 * lists the page's active filters, each removable; step 2 picks the export
 * type and file format; step 3 the columns, their headers and order,
 * remembered per export type. It cannot be closed while the export is being
 * started; once started, the user goes to /files after 2 seconds.
 */
export function ExportWizard({ collabId, filter, labels, onClose }: ExportWizardProps) {
  const navigate = useNavigate();
  const [zone] = useTimezone();
  const [step, setStep] = useState(0);
  const [scope, setScope] = useState<ExportScope>(() => ({ collabId: collabId || null, filter: cleanFilter(filter) }));
  const [exportType, setExportType] = useState<number | null>(null);
  const [fileType, setFileType] = useState<ExportFileType>(0);
  const [edited, setEdited] = useState<Record<number, ColumnSetting[]>>({});
  const [phase, setPhase] = useState<Phase>('editing');

  const types = useExportTypes();
  const typesError = types.isError ? errorMessage(types.error, 'Unknown error') : null;
  useEffect(() => {
    if (typesError) notify.error(`Failed to load export types: ${typesError}`);
  }, [typesError]);

  const chosenType = types.data?.find((t) => t.type === exportType);
  const columnsQuery = useExportColumns(step === 2 ? exportType : null);
  const available = columnsQuery.data ?? chosenType?.columns;
  const columns = useMemo(() => {
    if (exportType === null) return [];
    return edited[exportType] ?? mergeColumns(available ?? [], rememberedColumns(exportType));
  }, [exportType, edited, available]);
  const selected = columns.filter((c) => c.selected).length;

  const filters = activeFilters(scope, labels, zone);
  const exporting = useExportFile();

  const redirect = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(redirect.current), []);

  const canNext = step === 0 || (step === 1 && exportType !== null);
  const canExport = step === 2 && exportType !== null && selected > 0 && phase === 'editing';

  function startExport() {
    if (!canExport || exportType === null) return;
    rememberColumns(exportType, columns);
    setPhase('exporting');
    exporting.mutate(
      { collabId: scope.collabId, filter: scope.filter, settings: { exportType, fileType, ...toExportColumns(columns), timeZone: zone } },
      {
        onSuccess: () => {
          setPhase('started');
          redirect.current = window.setTimeout(() => {
            onClose();
            void navigate(SCREENS.files.link);
          }, REDIRECT_MS);
        },
        onError: (err) => {
          setPhase('editing');
          notify.error('Export Failed', errorMessage(err, 'Failed to start export'));
        },
      },
    );
  }

  const busy = phase !== 'editing';
  return (
    <DialogFrame
      title="Export Transactions"
      size="xl"
      dismissible={!busy}
      onClose={onClose}
      footer={
        <HStack justify="space-between" w="full">
          <Button variant="outline" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <HStack gap={2}>
            {step > 0 && (
              <Button variant="outline" onClick={() => setStep((s) => s - 1)} disabled={busy}>
                Previous
              </Button>
            )}
            {step < 2 && (
              <Button onClick={() => setStep((s) => s + 1)} disabled={!canNext}>
                Next
              </Button>
            )}
            {step === 2 && (
              <Button colorPalette="blue" onClick={startExport} disabled={!canExport} loading={phase === 'exporting'} loadingText="Exporting">
                Export
              </Button>
            )}
          </HStack>
        </HStack>
      }
    >
      <Stack gap={4}>
        <Box as="ol" display="flex" gap={4} listStyleType="none" aria-label="Export steps" fontSize="sm">
          {STEPS.map((name, i) => (
            <Text as="li" key={name} fontWeight={i === step ? 'bold' : 'normal'} color={i === step ? 'fg' : 'fg.muted'} aria-current={i === step ? 'step' : undefined}>
              {i + 1}. {name}
            </Text>
          ))}
        </Box>
        <Text srOnly aria-live="polite">
          Step {step + 1} of {STEPS.length}: {STEPS[step]}
        </Text>

        {step === 0 && <FiltersStep filters={filters} onRemove={(key) => setScope((s) => removeFilter(s, key))} />}
        {step === 1 && (
          <FormatStep
            types={types.data}
            loading={types.isPending}
            error={typesError}
            onRetry={() => void types.refetch()}
            exportType={exportType}
            fileType={fileType}
            onExportType={setExportType}
            onFileType={setFileType}
          />
        )}
        {step === 2 && (
          <ColumnsStep
            columns={columns}
            loading={columnsQuery.isPending && !available}
            pdfWarning={pdfTooWide(fileType, selected)}
            onChange={(next) => exportType !== null && setEdited((e) => ({ ...e, [exportType]: next }))}
            onReset={() => exportType !== null && setEdited((e) => ({ ...e, [exportType]: initialColumns(available ?? []) }))}
          />
        )}

        {phase === 'started' && (
          <Alert.Root status="success" role="status">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>Export started</Alert.Title>
              <Alert.Description>Your file is being prepared. Opening Files…</Alert.Description>
            </Alert.Content>
          </Alert.Root>
        )}
      </Stack>
    </DialogFrame>
  );
}
