import { Button, Text } from '@chakra-ui/react';
import { DialogFrame } from '@paygate/sdk';

interface Props {
  title?: string;
  message: string;
  confirmLabel?: string;
  /** A red confirm button, for deletes. */
  destructive?: boolean;
  pending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * ConfirmDialog asks before an edit or a delete; its owner mounts it only
 * while the question is open. It stays open while the action runs, so a
 * failure leaves the operator where they were.
 */
export function ConfirmDialog({ title = 'Confirm', message, confirmLabel = 'Yes', destructive, pending, onConfirm, onCancel }: Props) {
  return (
    <DialogFrame
      title={title}
      role="alertdialog"
      size="sm"
      onClose={onCancel}
      footer={
        <>
          <Button variant="outline" onClick={onCancel} disabled={pending}>
            Cancel
          </Button>
          <Button colorPalette={destructive ? 'red' : 'blue'} onClick={onConfirm} loading={pending}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      <Text>{message}</Text>
    </DialogFrame>
  );
}
