import { Alert, Button, Heading, Link, List, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, SCREENS } from '@paygate/sdk';
import { Link as RouterLink } from 'react-router';
import type { ExportFile } from '../api/types';
import { failureAdvice } from '../utils/error-causes';

interface Props {
  file: ExportFile;
  onClose: () => void;
}

/**
 * FileErrorDialog explains a failed export: its error, the probable causes
 * read from the message (timeout, permission, memory, else generic), advice,
 * and a way back to the transactions to export again (spec 02 "Files").
 */
export function FileErrorDialog({ file, onClose }: Props) {
  const message = file.errorMessage || file.statusMessage;
  const { kind, causes, advice } = failureAdvice(message);
  return (
    <DialogFrame
      title="Error Details"
      onClose={onClose}
      footer={
        <Button variant="outline" onClick={onClose}>
          Close
        </Button>
      }
    >
      <Stack gap={4} data-failure-kind={kind}>
        <Text>
          The export <strong>{file.name}</strong> failed.
        </Text>
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Error</Alert.Title>
            <Alert.Description>{message || 'No error message was recorded.'}</Alert.Description>
          </Alert.Content>
        </Alert.Root>
        <Stack gap={1} as="section" aria-labelledby="probable-causes">
          <Heading as="h3" size="sm" id="probable-causes">
            Probable causes
          </Heading>
          <List.Root ps={5}>
            {causes.map((c) => (
              <List.Item key={c}>{c}</List.Item>
            ))}
          </List.Root>
        </Stack>
        <Stack gap={1} as="section" aria-labelledby="what-to-do">
          <Heading as="h3" size="sm" id="what-to-do">
            What to do
          </Heading>
          <Text>{advice}</Text>
        </Stack>
        <Link asChild color="blue.600" fontWeight="medium">
          <RouterLink to={SCREENS.transactions.link}>Go to Transactions to export again</RouterLink>
        </Link>
      </Stack>
    </DialogFrame>
  );
}
