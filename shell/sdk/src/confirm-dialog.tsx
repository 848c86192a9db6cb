import { Button, Text } from '@chakra-ui/react';
import { DialogFrame } from './dialog-frame';

/** ConfirmDialogProps configure a ConfirmDialog. */
export interface ConfirmDialogProps {
  title?: string;
  message: string;
  confirmLabel?: string;
  /** A red confirm button, for destructive actions such as deletes. */
  destructive?: boolean;
  pending?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * ConfirmDialog asks before an action (an edit, a delete); its owner mounts
 * it only while the question is open. It stays open while the action runs, so a
 * failure leaves the operator where they were.
 */
export function ConfirmDialog({ title = 'Confirm', message, confirmLabel = 'Yes', destructive, pending, onConfirm, onCancel }: ConfirmDialogProps) {
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
