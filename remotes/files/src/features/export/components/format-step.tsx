import { Alert, Button, Field, HStack, NativeSelect, RadioGroup, Skeleton, Stack, Text } from '@chakra-ui/react';
import type { ExportType } from '../../../api/get-export-types';
import { EXPORT_FILE_TYPES, type ExportFileType } from '../utils/file-types';

interface Props {
  types: ExportType[] | undefined;
  loading: boolean;
  /** The load error's message, if the types could not be read. */
  error: string | null;
  onRetry: () => void;
  exportType: number | null;
  fileType: ExportFileType;
  onExportType: (type: number | null) => void;
  onFileType: (type: ExportFileType) => void;
}

/** FormatStep picks the export type (from the server's list) and the file format (step 2). */
export function FormatStep({ types, loading, error, onRetry, exportType, fileType, onExportType, onFileType }: Props) {
  const chosen = types?.find((t) => t.type === exportType);
  return (
    <Stack gap={5}>
      <Field.Root required>
        <Field.Label>Export type</Field.Label>
        {loading ? (
          <Skeleton height="8" w="full" />
        ) : (
          <NativeSelect.Root size="sm" disabled={!types?.length}>
            <NativeSelect.Field aria-label="Export type" value={exportType ?? ''} onChange={(e) => onExportType(e.target.value ? Number(e.target.value) : null)}>
              <option value="">Select export type</option>
              {types?.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.name}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        )}
        {chosen?.description && <Field.HelperText>{chosen.description}</Field.HelperText>}
      </Field.Root>
      {error && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Export types could not be loaded.</Alert.Title>
            <Alert.Description>{error}</Alert.Description>
          </Alert.Content>
          <Button size="xs" variant="outline" onClick={onRetry}>
            Retry
          </Button>
        </Alert.Root>
      )}
      <RadioGroup.Root value={String(fileType)} onValueChange={(e) => onFileType(Number(e.value) as ExportFileType)} aria-label="File format" size="sm">
        <Text fontWeight="medium" fontSize="sm" mb={2} aria-hidden>
          File format
        </Text>
        <HStack gap={6}>
          {EXPORT_FILE_TYPES.map((t) => (
            <RadioGroup.Item key={t.value} value={String(t.value)}>
              <RadioGroup.ItemHiddenInput />
              <RadioGroup.ItemIndicator />
              <RadioGroup.ItemText>{t.label}</RadioGroup.ItemText>
            </RadioGroup.Item>
          ))}
        </HStack>
      </RadioGroup.Root>
      {exportType === null && !loading && !error && <Text fontSize="sm" color="fg.muted">Choose an export type to continue.</Text>}
    </Stack>
  );
}
