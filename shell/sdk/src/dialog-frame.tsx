import { CloseButton, Dialog, Portal } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** DialogFrameProps configure a DialogFrame. */
export interface DialogFrameProps {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  size?: Dialog.RootProps['size'];
  role?: 'dialog' | 'alertdialog';
}

/**
 * DialogFrame is an open dialog with a title, a close button, a scrolling
 * body and an optional footer. Its owner mounts it only while it is open, so
 * every opening starts from fresh state; Escape, the close button and a click
 * outside (but not on a toast) call onClose.
 */
export function DialogFrame({ title, onClose, children, footer, size = 'lg', role = 'dialog' }: DialogFrameProps) {
  return (
    <Dialog.Root
      open
      role={role}
      size={size}
      scrollBehavior="inside"
      onOpenChange={(e) => !e.open && onClose()}
      // Dismissing a toast is not leaving the dialog: the form stays as it is.
      onInteractOutside={(e) => {
        const target = e.detail.originalEvent.target;
        if (target instanceof Element && target.closest('[data-scope="toast"]')) e.preventDefault();
      }}
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
            <Dialog.Header>
              <Dialog.Title>{title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>{children}</Dialog.Body>
            {footer && <Dialog.Footer>{footer}</Dialog.Footer>}
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
