import { CloseButton, Dialog, Portal } from '@chakra-ui/react';
import type { ReactNode } from 'react';

interface Props {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  size?: Dialog.RootProps['size'];
}

/**
 * DialogFrame is an open dialog with a title, a close button, a scrolling body
 * and an optional footer; its owner mounts it only while it is open. A click
 * on a toast does not close it.
 */
export function DialogFrame({ title, onClose, children, footer, size = 'lg' }: Props) {
  return (
    <Dialog.Root
      open
      size={size}
      scrollBehavior="inside"
      onOpenChange={(e) => !e.open && onClose()}
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
