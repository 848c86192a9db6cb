import { Button, ChakraProvider, defaultSystem, Input } from '@chakra-ui/react';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { DialogFrame } from './dialog-frame';

/** An outer form (a list's filters) with a dialog opened from inside it (the Views bar's Save as…). */
function FormWithDialog({ outer, inner }: { outer: string[]; inner: string[] }) {
  const [open, setOpen] = useState(false);
  return (
    <form
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        outer.push('outer');
      }}
    >
      <Input aria-label="Filter" />
      <Button onClick={() => setOpen(true)}>Open</Button>
      {open && (
        <DialogFrame
          title="Name it"
          onClose={() => setOpen(false)}
          footer={
            <Button type="submit" form="inner">
              Save
            </Button>
          }
        >
          <form
            id="inner"
            onSubmit={(e) => {
              e.preventDefault();
              inner.push('inner');
            }}
          >
            <Input aria-label="Name" />
          </form>
        </DialogFrame>
      )}
    </form>
  );
}

/**
 * Two dialogs, the second shown in place of the first (as the Approvals
 * page shows Reject in place of a request's dialog), and a button outside
 * both, where the first hands its focus back.
 */
function DialogInPlaceOfAnother({ closed }: { closed: string[] }) {
  const [open, setOpen] = useState<'none' | 'first' | 'second'>('none');
  return (
    <>
      <Button onClick={() => setOpen('first')}>Review</Button>
      {open === 'first' && (
        <DialogFrame title="Request" onClose={() => setOpen('none')}>
          <Button onClick={() => setOpen('second')}>Reject</Button>
        </DialogFrame>
      )}
      {open === 'second' && (
        <DialogFrame
          title="Reject it"
          onClose={() => {
            closed.push('second');
            setOpen('first');
          }}
        >
          <Input aria-label="Reason" autoFocus />
        </DialogFrame>
      )}
    </>
  );
}

describe('DialogFrame', () => {
  it('stays open and takes the focus back when focus lands outside it (another dialog handing back its focus late)', async () => {
    const closed: string[] = [];
    const user = userEvent.setup();
    render(
      <ChakraProvider value={defaultSystem}>
        <DialogInPlaceOfAnother closed={closed} />
      </ChakraProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Review' }));
    const first = await screen.findByRole('dialog', { name: 'Request' });
    await user.click(within(first).getByRole('button', { name: 'Reject' }));
    const second = await screen.findByRole('dialog', { name: 'Reject it' });
    await waitFor(() => expect(within(second).getByRole('textbox', { name: 'Reason' })).toHaveFocus());
    // What a slow machine does: the first dialog's focus comes back to the
    // button that opened it after the second dialog is open.
    act(() => screen.getByRole('button', { name: 'Review', hidden: true }).focus());
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toEqual([]);
    expect(screen.getByRole('dialog', { name: 'Reject it' })).toBeInTheDocument();
    // The keyboard is back where it was in the dialog.
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Reason' })).toHaveFocus());
    // Escape still closes it.
    await user.keyboard('{Escape}');
    await waitFor(() => expect(closed).toEqual(['second']));
  });

  it("keeps its form's submit to itself: the form it was opened from is not submitted", async () => {
    const outer: string[] = [];
    const inner: string[] = [];
    const user = userEvent.setup();
    render(
      <ChakraProvider value={defaultSystem}>
        <FormWithDialog outer={outer} inner={inner} />
      </ChakraProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Open' }));
    const dialog = await screen.findByRole('dialog', { name: 'Name it' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'x{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(inner).toEqual(['inner', 'inner']);
    expect(outer).toEqual([]);
    // The outer form still submits on its own.
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.type(screen.getByRole('textbox', { name: 'Filter' }), 'y{Enter}');
    expect(outer).toEqual(['outer']);
  });
});
