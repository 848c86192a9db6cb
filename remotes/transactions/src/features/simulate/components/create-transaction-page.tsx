import { Alert, Box, Button, Field, Heading, HStack, Input, Link, NativeSelect, Stack, Switch, Text, Textarea } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { compareDecimal, errorMessage, mayStartPayments, merchantsQuery, NoPermission, PageFrame, SCREENS, useUser } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { useInitializeTransaction, type InitializeResult } from '../api/initialize-transaction';
import { useProviders } from '../api/get-providers';
import { ADDITIONAL_DATA_PRESETS, DEFAULT_AMOUNT, DEFAULT_CURRENCY, newNonce, parseAdditionalData, splitTags } from '../utils/form';

/** FormState is the simulate form's flow (spec 02 §4). */
type Flow = { state: 'idle' } | { state: 'processing' } | { state: 'success'; result: InitializeResult } | { state: 'error'; message: string };

/**
 * CreateTransactionPage simulates a payment as the signed-in admin (route
 * /simulate-payment). The route lets in the role Admin; the call also needs
 * what its handler asks (mayStartPayments), else the page says so.
 */
export function CreateTransactionPage() {
  const user = useUser();
  if (!mayStartPayments(user)) return <NoPermission />;
  return <CreateTransaction />;
}

function CreateTransaction() {
  const user = useUser();
  const providers = useProviders();
  const merchants = useQuery(merchantsQuery(user?.username ?? ''));
  const initialize = useInitializeTransaction();

  const [nonce, setNonce] = useState(() => newNonce());
  const [amount, setAmount] = useState(DEFAULT_AMOUNT);
  const [currency, setCurrency] = useState(DEFAULT_CURRENCY);
  const [providerId, setProviderId] = useState('');
  const [payType, setPayType] = useState('');
  const [tags, setTags] = useState('');
  const [merchantHash, setMerchantHash] = useState('');
  const [clientId, setClientId] = useState('');
  const [additionalData, setAdditionalData] = useState('{}');
  const [cashIn, setCashIn] = useState(true);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [flow, setFlow] = useState<Flow>({ state: 'idle' });

  const provider = providers.data?.find((p) => String(p.id) === providerId);
  const payTypes = (provider?.payTypes ?? []).filter((t) => (cashIn ? t.cashIn : t.cashOut));
  const amountOk = /^\d+(\.\d{1,2})?$/.test(amount.trim()) && compareDecimal(amount, '0') > 0;
  const ready = nonce.trim() !== '' && amountOk && currency.trim() !== '' && !!provider && payType !== '' && merchantHash !== '';

  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseAdditionalData(additionalData);
    if (!parsed.ok) {
      setJsonError(parsed.error);
      return;
    }
    setJsonError(null);
    setFlow({ state: 'processing' });
    try {
      const result = await initialize.mutateAsync({
        paymentData: {
          nonce: nonce.trim(),
          amount: amount.trim(),
          currency: currency.trim().toUpperCase(),
          providerId: Number(providerId),
          payType,
          providerTags: splitTags(tags),
        },
        merchantData: { merchantHash, clientId: clientId.trim(), additionalData: parsed.value },
        cashIn,
      });
      setFlow({ state: 'success', result });
    } catch (err) {
      setFlow({ state: 'error', message: errorMessage(err, 'An unknown error occurred') });
    }
  }

  function again() {
    setNonce(newNonce());
    setFlow({ state: 'idle' });
  }

  const processing = flow.state === 'processing';

  return (
    <PageFrame title={SCREENS.simulatePayment.title} maxW="3xl">
      <form onSubmit={submit} aria-label="Create Transaction" noValidate>
        <Stack gap="5">
          <Box borderWidth="1px" borderRadius="md" p="4">
            <Heading size="sm" mb="3">
              Payment Data
            </Heading>
            <Stack gap="3">
              <HStack gap="3" align="start">
                <Field.Root required>
                  <Field.Label>Nonce</Field.Label>
                  <Input value={nonce} onChange={(e) => setNonce(e.target.value)} disabled={processing} />
                </Field.Root>
                <Field.Root>
                  <Field.Label>Direction</Field.Label>
                  <Switch.Root
                    checked={cashIn}
                    onCheckedChange={(e) => {
                      setCashIn(e.checked);
                      setPayType('');
                    }}
                    disabled={processing}
                  >
                    <Switch.HiddenInput />
                    <Switch.Control />
                    <Switch.Label>{cashIn ? 'Cash In (deposit)' : 'Cash Out (withdrawal)'}</Switch.Label>
                  </Switch.Root>
                </Field.Root>
              </HStack>
              <HStack gap="3" align="start">
                <Field.Root required invalid={!amountOk}>
                  <Field.Label>Amount</Field.Label>
                  <Input value={amount} inputMode="decimal" onChange={(e) => setAmount(e.target.value)} disabled={processing} />
                  <Field.ErrorText>Enter an amount above 0 with at most 2 decimals</Field.ErrorText>
                </Field.Root>
                <Field.Root required>
                  <Field.Label>Currency</Field.Label>
                  <Input value={currency} maxLength={10} onChange={(e) => setCurrency(e.target.value.toUpperCase())} disabled={processing} />
                </Field.Root>
              </HStack>
              <HStack gap="3" align="start">
                <Field.Root required>
                  <Field.Label>Provider</Field.Label>
                  <NativeSelect.Root disabled={processing || providers.isPending}>
                    <NativeSelect.Field
                      value={providerId}
                      onChange={(e) => {
                        setProviderId(e.target.value);
                        setPayType('');
                      }}
                    >
                      <option value="">{providers.isPending ? 'Loading providers...' : 'Select provider'}</option>
                      {providers.data?.map((p) => (
                        <option key={p.id} value={p.id}>
                          {p.name}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                </Field.Root>
                <Field.Root required>
                  <Field.Label>Pay Type</Field.Label>
                  <NativeSelect.Root disabled={processing || !provider}>
                    <NativeSelect.Field value={payType} onChange={(e) => setPayType(e.target.value)}>
                      <option value="">Select pay type</option>
                      {payTypes.map((t) => (
                        <option key={t.id} value={t.code}>
                          {t.name}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                </Field.Root>
              </HStack>
              <Field.Root>
                <Field.Label>Provider Tags</Field.Label>
                <Input value={tags} placeholder="tag1, tag2; tag3" onChange={(e) => setTags(e.target.value)} disabled={processing} />
                <Field.HelperText>Separate tags with commas or semicolons</Field.HelperText>
              </Field.Root>
            </Stack>
          </Box>

          <Box borderWidth="1px" borderRadius="md" p="4">
            <Heading size="sm" mb="3">
              Merchant Data
            </Heading>
            <Stack gap="3">
              <HStack gap="3" align="start">
                <Field.Root required>
                  <Field.Label>Merchant</Field.Label>
                  <NativeSelect.Root disabled={processing || merchants.isPending}>
                    <NativeSelect.Field value={merchantHash} onChange={(e) => setMerchantHash(e.target.value)}>
                      <option value="">{merchants.isPending ? 'Loading merchants...' : 'Select merchant'}</option>
                      {merchants.data?.map((m) => (
                        <option key={m.id} value={m.hash}>
                          {m.name}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                </Field.Root>
                <Field.Root>
                  <Field.Label>Client ID</Field.Label>
                  <Input value={clientId} onChange={(e) => setClientId(e.target.value)} disabled={processing} />
                </Field.Root>
              </HStack>
              <Field.Root invalid={jsonError !== null}>
                <Field.Label>Additional Data</Field.Label>
                <HStack gap="2" mb="1">
                  {ADDITIONAL_DATA_PRESETS.map((p) => (
                    <Button
                      key={p.name}
                      size="xs"
                      variant="outline"
                      disabled={processing}
                      onClick={() => {
                        setAdditionalData(JSON.stringify(p.data, null, 2));
                        setJsonError(null);
                      }}
                    >
                      {p.name}
                    </Button>
                  ))}
                </HStack>
                <Textarea
                  value={additionalData}
                  rows={6}
                  fontFamily="mono"
                  onChange={(e) => {
                    setAdditionalData(e.target.value);
                    setJsonError(null);
                  }}
                  disabled={processing}
                />
                <Field.ErrorText>{jsonError}</Field.ErrorText>
              </Field.Root>
            </Stack>
          </Box>

          <HStack>
            <Button type="submit" colorPalette="blue" loading={processing} loadingText="Processing..." disabled={!ready || processing}>
              Create Transaction
            </Button>
            {(flow.state === 'success' || flow.state === 'error') && (
              <Button variant="outline" onClick={again}>
                New Transaction
              </Button>
            )}
          </HStack>
        </Stack>
      </form>

      {flow.state === 'success' && (
        <Alert.Root status="success" role="status" aria-label="Transaction created">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Transaction created</Alert.Title>
            <Alert.Description>
              <Text>
                Reference ID: <strong>{flow.result.transactionReferenceId}</strong>
              </Text>
              {flow.result.id && (
                <Link asChild color="blue.fg">
                  <RouterLink to={`/transactions/${flow.result.id}`}>View transaction {flow.result.id}</RouterLink>
                </Link>
              )}
            </Alert.Description>
          </Alert.Content>
        </Alert.Root>
      )}
      {flow.state === 'error' && (
        <Alert.Root status="error" role="alert">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Transaction failed</Alert.Title>
            <Alert.Description>{flow.message}</Alert.Description>
          </Alert.Content>
        </Alert.Root>
      )}
    </PageFrame>
  );
}
