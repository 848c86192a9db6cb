/** formatSeconds writes a duration as its two largest units: '2d 3h', '1h 5m', '4m 10s', '45s'. */
export function formatSeconds(total: number): string {
  const s = Math.max(0, Math.floor(total));
  const units: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = units.findIndex(([n]) => n > 0);
  if (first < 0) return '0s';
  return units
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(' ');
}

/** directionLabel names a direction: 1 Deposit, 2 Withdrawal, 0 (an SLA's any) Both. */
export function directionLabel(t: number): string {
  return t === 1 ? 'Deposit' : t === 2 ? 'Withdrawal' : 'Both';
}

/** providerStateLabel names a provider status for people. */
export function providerStateLabel(state: string): string {
  switch (state) {
    case 'success':
      return 'Success';
    case 'failed':
      return 'Failed';
    case 'pending':
      return 'Pending';
    case 'cancelled':
      return 'Cancelled';
    case 'error':
      return 'No answer';
    default:
      return 'Not asked';
  }
}

/** providerStatePalette colours a provider status. */
export function providerStatePalette(state: string): string {
  switch (state) {
    case 'success':
      return 'green';
    case 'failed':
    case 'cancelled':
      return 'red';
    case 'pending':
      return 'yellow';
    default:
      return 'gray';
  }
}
