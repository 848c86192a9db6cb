import { Field, NativeSelect } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { merchantLabel, merchantsQuery, reconcileMerchantFilter, useSelectedMerchant, type User } from '@paygate/sdk';
import { useEffect } from 'react';

/**
 * MerchantSelect is the 'Current Merchant' dropdown. Once the merchants have
 * loaded it applies the merchant-filter rule of spec 01 §4 to the stored choice.
 */
export function MerchantSelect({ user }: { user: User }) {
  const merchants = useQuery(merchantsQuery(user.username));
  const [selected, setSelected] = useSelectedMerchant();
  const list = merchants.data;

  useEffect(() => {
    if (!list) return;
    const next = reconcileMerchantFilter(
      selected,
      list.map((m) => m.id),
    );
    if (next !== selected) setSelected(next);
  }, [list, selected, setSelected]);

  return (
    <Field.Root>
      <Field.Label>Current Merchant</Field.Label>
      <NativeSelect.Root size="sm" disabled={!list || list.length === 0}>
        <NativeSelect.Field
          value={selected === null ? '' : String(selected)}
          onChange={(e) => setSelected(e.target.value === '' ? null : Number(e.target.value))}
        >
          {selected === null && <option value="">{merchants.isError ? 'Failed to load merchants' : 'No merchant'}</option>}
          {list?.map((m) => (
            <option key={m.id} value={String(m.id)}>
              {merchantLabel(m)}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
    </Field.Root>
  );
}
