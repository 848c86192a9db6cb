import { Button, ChakraProvider, defaultSystem, Input } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
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

describe('DialogFrame', () => {
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
