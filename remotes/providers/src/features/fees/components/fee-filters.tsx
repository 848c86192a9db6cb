import { Button, Flex } from '@chakra-ui/react';
import type { CollabOption, Option } from '../api/get-lookups';
import { SelectField } from './select-field';

/** FeeFilters are the list's filters as the selects hold them ('' for any). */
export interface FeeFilterValues {
  collabId: string;
  transactionType: string;
  payTypeId: string;
  currencyId: string;
  enabled: string;
}

export const NO_FILTERS: FeeFilterValues = { collabId: '', transactionType: '', payTypeId: '', currencyId: '', enabled: '' };

interface Props {
  values: FeeFilterValues;
  onChange: (values: FeeFilterValues) => void;
  collabs: CollabOption[];
  collabLabel: (c: CollabOption) => string;
  currencies: Option[];
  payTypes: Option[];
}

/**
 * FeeFiltersBar filters the fee list by collab, type, pay type, currency and state. The filters
 * wrap: each is as wide as its longest option at least (a native select's own width) and grows to
 * share a row, so no choice is cut short however narrow the window.
 */
export function FeeFiltersBar({ values, onChange, collabs, collabLabel, currencies, payTypes }: Props) {
  const set = (k: keyof FeeFilterValues) => (v: string) => onChange({ ...values, [k]: v });
  return (
    <Flex as="form" role="search" aria-label="Fee filters" wrap="wrap" gap={3} align="end" css={{ '& > *': { flex: '1 0 auto', width: 'auto' } }}>
      <SelectField
        label="Collab"
        value={values.collabId}
        onChange={set('collabId')}
        options={[{ value: '', label: 'All collabs' }, { value: '0', label: 'Global (every collab)' }, ...collabs.map((c) => ({ value: String(c.id), label: collabLabel(c) }))]}
      />
      <SelectField
        label="Type"
        value={values.transactionType}
        onChange={set('transactionType')}
        options={[
          { value: '', label: 'Any type' },
          { value: '1', label: 'Deposit' },
          { value: '2', label: 'Withdrawal' },
          { value: '0', label: 'Both (no type)' },
        ]}
      />
      <SelectField
        label="Pay type"
        value={values.payTypeId}
        onChange={set('payTypeId')}
        options={[{ value: '', label: 'Any pay type' }, { value: '0', label: 'Every pay type' }, ...payTypes.map((p) => ({ value: String(p.id), label: p.label }))]}
      />
      <SelectField
        label="Currency"
        value={values.currencyId}
        onChange={set('currencyId')}
        options={[{ value: '', label: 'Any currency' }, ...currencies.map((c) => ({ value: String(c.id), label: c.label }))]}
      />
      <SelectField
        label="State"
        value={values.enabled}
        onChange={set('enabled')}
        options={[
          { value: '', label: 'Enabled and disabled' },
          { value: 'true', label: 'Enabled' },
          { value: 'false', label: 'Disabled' },
        ]}
      />
      <Button size="sm" variant="outline" onClick={() => onChange(NO_FILTERS)}>
        Clear
      </Button>
    </Flex>
  );
}
