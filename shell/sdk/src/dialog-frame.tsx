import { CloseButton, Dialog, Portal } from '@chakra-ui/react';
import { type ReactNode, useRef } from 'react';

/** DialogFrameProps configure a DialogFrame. */
export interface DialogFrameProps {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  size?: Dialog.RootProps['size'];
  role?: 'dialog' | 'alertdialog';
  /**
   * False while the dialog must stay open (an export being started): Escape,
   * a click outside and the close button then do nothing, and the close
   * button is disabled. True by default.
   */
  dismissible?: boolean;
}

/**
 * DialogFrame is an open dialog with a title, a close button, a scrolling
 * body and an optional footer. Its owner mounts it only while it is open, so
 * every opening starts from fresh state; Escape, the close button and a click
 * outside (but not on a toast) call onClose.
 *
 * Focus landing outside neither closes it nor stays outside: the dialog
 * traps the keyboard's focus, so only code moves focus out, and the code that
 * does is another dialog handing back its focus. An owner that shows this
 * dialog in place of another (the Approvals page's Reject, opened from the
 * request's dialog) unmounts the first, whose focus goes back to the button
 * that opened it, outside this one; on a slow machine that came after this
 * dialog was open, which then closed itself (and, once it no longer closed,
 * left the keyboard on the page behind it). The focus goes back to the
 * element of this dialog that last held it, or to the dialog itself. Focus
 * on a toast (its close button) is left where it is.
 *
 * A form's submit stops at the dialog: the dialog is portaled out of its
 * owner's DOM, but React bubbles events through the component tree, so a
 * dialog opened from inside a form (the Views bar's "Save as…" in a filter
 * form) would otherwise submit that form too.
 */
export function DialogFrame({ title, onClose, children, footer, size = 'lg', role = 'dialog', dismissible = true }: DialogFrameProps) {
  const content = useRef<HTMLDivElement>(null);
  // The element in this dialog that last held the focus. Not the dialog
  // itself: the focus trap puts the focus there when it sees focus outside,
  // before the handler below runs.
  const lastFocused = useRef<HTMLElement | null>(null);
  return (
    <Dialog.Root
      open
      role={role}
      size={size}
      scrollBehavior="inside"
      closeOnEscape={dismissible}
      closeOnInteractOutside={dismissible}
      onOpenChange={(e) => !e.open && dismissible && onClose()}
      onFocusOutside={(e) => {
        e.preventDefault();
        const target = e.detail.originalEvent.target;
        if (target instanceof Element && target.closest('[data-scope="toast"]')) return;
        const back = lastFocused.current?.isConnected ? lastFocused.current : content.current;
        back?.focus({ preventScroll: true });
      }}
      // Dismissing a toast is not leaving the dialog: the form stays as it is.
      onInteractOutside={(e) => {
        const target = e.detail.originalEvent.target;
        if (target instanceof Element && target.closest('[data-scope="toast"]')) e.preventDefault();
      }}
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content
            ref={content}
            onSubmit={(e) => e.stopPropagation()}
            onFocus={(e) => {
              if (e.target instanceof HTMLElement && e.target !== content.current) lastFocused.current = e.target;
            }}
          >
            <Dialog.Header>
              <Dialog.Title>{title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>{children}</Dialog.Body>
            {footer && <Dialog.Footer>{footer}</Dialog.Footer>}
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close" disabled={!dismissible} />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
