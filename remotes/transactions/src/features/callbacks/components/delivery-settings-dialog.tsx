import { Alert, Button, Checkbox, Fieldset, HStack, IconButton, Input, Stack, Table, Text, VisuallyHidden } from '@chakra-ui/react';
import { DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { statusLabel } from '../../../utils/status';
import { FINAL_STATUSES, MAX_HEADER_NAME, MAX_HEADER_VALUE, MAX_HEADERS, useSaveDeliverySettings } from '../api/delivery-settings';
import type { CallbackHeader, CallbackUrl } from '../api/types';

/** A header row being edited; `stored` marks a secret whose value the server keeps unless a new one is typed. */
interface HeaderRow extends CallbackHeader {
  key: number;
  stored: boolean;
}

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** headerErrors checks the rows as the callbacks service will (docs/contracts-callbacks.md, "Custom headers"). */
export function headerErrors(rows: readonly Pick<HeaderRow, 'name' | 'value' | 'secret' | 'stored'>[]): (string | null)[] {
  const seen = new Set<string>();
  return rows.map((r) => {
    const name = r.name.trim();
    const value = r.value.trim();
    if (name === '') return 'Name is required.';
    if (name.length > MAX_HEADER_NAME || !TOKEN.test(name)) return `Name must be a header name of at most ${MAX_HEADER_NAME} letters, digits or - _ . characters.`;
    if (seen.has(name.toLowerCase())) return `"${name}" is listed twice.`;
    seen.add(name.toLowerCase());
    // eslint-disable-next-line no-control-regex
    if (value.length > MAX_HEADER_VALUE || /[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      return `Value must be at most ${MAX_HEADER_VALUE} characters, without line breaks.`;
    }
    if (value === '' && !(r.secret && r.stored)) return 'Value is required.';
    return null;
  });
}

interface Props {
  url: CallbackUrl;
  onSaved: () => void;
  onClose: () => void;
}

/**
 * DeliverySettingsDialog edits what a callback URL receives and what its
 * deliveries carry: the final statuses (every one by default) and its custom
 * headers; a secret header's value is never shown, and is kept unless a new
 * one is typed.
 */
export function DeliverySettingsDialog({ url, onSaved, onClose }: Props) {
  const save = useSaveDeliverySettings();
  const [every, setEvery] = useState(url.finalStatuses.length === 0);
  const [statuses, setStatuses] = useState<number[]>(url.finalStatuses.length === 0 ? [...FINAL_STATUSES] : url.finalStatuses);
  const [rows, setRows] = useState<HeaderRow[]>(() => url.headers.map((h, i) => ({ ...h, key: i, stored: h.secret })));
  const [nextKey, setNextKey] = useState(url.headers.length);
  const [submitted, setSubmitted] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const errors = headerErrors(rows);
  const statusError = !every && statuses.length === 0 ? 'Choose at least one final status, or every final status.' : null;
  const invalid = errors.some((e) => e !== null) || statusError !== null;

  const chosen = every ? [] : [...statuses].sort((a, b) => a - b);
  const statusesChanged = chosen.join(',') !== url.finalStatuses.join(',');
  const headersChanged =
    rows.length !== url.headers.length ||
    rows.some((r, i) => {
      const h = url.headers[i];
      if (!h) return true;
      return r.name.trim() !== h.name || r.secret !== h.secret || (r.secret ? r.value.trim() !== '' || !r.stored : r.value.trim() !== h.value);
    });

  function set(key: number, change: Partial<HeaderRow>) {
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    setFailure(null);
    if (invalid) return;
    if (!statusesChanged && !headersChanged) {
      onClose();
      return;
    }
    try {
      await save.mutateAsync({ id: url.id, finalStatuses: chosen, headers: rows, statusesChanged, headersChanged });
      notify.success('Delivery settings saved', url.callbackUrl);
      onSaved();
      onClose();
    } catch (err) {
      setFailure(errorMessage(err, 'The delivery settings could not be saved.'));
    }
  }

  return (
    <DialogFrame
      title="Delivery settings"
      onClose={onClose}
      dismissible={!save.isPending}
      footer={
        <HStack>
          <Button variant="outline" onClick={onClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="delivery-settings" colorPalette="blue" loading={save.isPending}>
            Save
          </Button>
        </HStack>
      }
    >
      <form id="delivery-settings" onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="5">
          <Text fontSize="sm" color="fg.muted" wordBreak="break-all">
            {url.callbackUrl}
          </Text>
          {failure && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Description>{failure}</Alert.Description>
            </Alert.Root>
          )}

          <Fieldset.Root invalid={submitted && statusError !== null}>
            <Fieldset.Legend>Final statuses sent</Fieldset.Legend>
            <Checkbox.Root checked={every} onCheckedChange={(e) => setEvery(!!e.checked)}>
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>Every final status</Checkbox.Label>
            </Checkbox.Root>
            {!every && (
              <HStack wrap="wrap" gap="3" role="group" aria-label="Final statuses">
                {FINAL_STATUSES.map((s) => (
                  <Checkbox.Root
                    key={s}
                    checked={statuses.includes(s)}
                    onCheckedChange={(e) => setStatuses((cur) => (e.checked ? [...cur.filter((c) => c !== s), s] : cur.filter((c) => c !== s)))}
                  >
                    <Checkbox.HiddenInput />
                    <Checkbox.Control />
                    <Checkbox.Label>{statusLabel(s)}</Checkbox.Label>
                  </Checkbox.Root>
                ))}
              </HStack>
            )}
            {submitted && statusError && <Fieldset.ErrorText>{statusError}</Fieldset.ErrorText>}
          </Fieldset.Root>

          <Fieldset.Root>
            <Fieldset.Legend>Custom headers</Fieldset.Legend>
            <Fieldset.HelperText>
              Sent with every delivery to this URL. A secret value is stored encrypted and never shown again; leave it empty to keep it.
            </Fieldset.HelperText>
            {rows.length === 0 ? (
              <Text fontSize="sm" color="fg.muted">
                No custom headers.
              </Text>
            ) : (
              <Table.Root size="sm" aria-label="Custom headers">
                <Table.Header>
                  <Table.Row>
                    <Table.ColumnHeader>Name</Table.ColumnHeader>
                    <Table.ColumnHeader>Value</Table.ColumnHeader>
                    <Table.ColumnHeader>Secret</Table.ColumnHeader>
                    <Table.ColumnHeader>
                      <VisuallyHidden>Remove</VisuallyHidden>
                    </Table.ColumnHeader>
                  </Table.Row>
                </Table.Header>
                <Table.Body>
                  {rows.map((r, i) => (
                    <Table.Row key={r.key}>
                      <Table.Cell verticalAlign="top">
                        <Input
                          size="sm"
                          aria-label={`Header ${i + 1} name`}
                          value={r.name}
                          placeholder="X-Merchant-Token"
                          aria-invalid={submitted && errors[i] !== null}
                          onChange={(e) => set(r.key, { name: e.target.value })}
                        />
                        {submitted && errors[i] && (
                          <Text fontSize="xs" color="fg.error" role="alert">
                            {errors[i]}
                          </Text>
                        )}
                      </Table.Cell>
                      <Table.Cell verticalAlign="top">
                        <Input
                          size="sm"
                          aria-label={`Header ${i + 1} value`}
                          type={r.secret ? 'password' : 'text'}
                          autoComplete="off"
                          value={r.value}
                          placeholder={r.secret && r.stored ? 'Hidden: leave empty to keep' : ''}
                          onChange={(e) => set(r.key, { value: e.target.value })}
                        />
                      </Table.Cell>
                      <Table.Cell verticalAlign="top">
                        <Checkbox.Root checked={r.secret} onCheckedChange={(e) => set(r.key, { secret: !!e.checked, stored: false })}>
                          <Checkbox.HiddenInput aria-label={`Header ${i + 1} secret`} />
                          <Checkbox.Control />
                        </Checkbox.Root>
                      </Table.Cell>
                      <Table.Cell verticalAlign="top">
                        <IconButton size="xs" variant="ghost" aria-label={`Remove header ${r.name.trim() || i + 1}`} onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}>
                          ×
                        </IconButton>
                      </Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            )}
            <HStack>
              <Button
                size="sm"
                variant="outline"
                disabled={rows.length >= MAX_HEADERS}
                onClick={() => {
                  setRows((rs) => [...rs, { key: nextKey, name: '', value: '', secret: false, stored: false }]);
                  setNextKey((k) => k + 1);
                }}
              >
                Add header
              </Button>
              {rows.length >= MAX_HEADERS && (
                <Text fontSize="xs" color="fg.muted">
                  At most {MAX_HEADERS} headers.
                </Text>
              )}
            </HStack>
          </Fieldset.Root>
        </Stack>
      </form>
    </DialogFrame>
  );
}
