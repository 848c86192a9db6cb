// The dashboard's exact decimal arithmetic is the SDK's money module, shared with the remotes.
export { addDecimal, formatDecimal, formatMoney, isDecimal, subDecimal } from '@paygate/sdk';
