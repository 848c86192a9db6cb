import type { ValidationEndpointJson } from '@paygate/gen/gateway/v1/validation_pb';

/** ValidationEndpointWire is a validation endpoint on the wire (generated from the gateway's protos). */
export type ValidationEndpointWire = ValidationEndpointJson;

/** ValidationEndpoint is a validation endpoint as the console shows it (spec 02 §3). */
export interface ValidationEndpoint {
  /** A 64-bit id, kept as the string the JSON carries. */
  id: string;
  collabId: number;
  url: string;
  /** 1 to 100; lower numbers are asked first. */
  priority: number;
  awaitable: boolean;
  forCashIn: boolean;
  forCashOut: boolean;
}

/** toValidationEndpoint fills the defaults proto3 JSON leaves out (false, 0). */
export function toValidationEndpoint(e: ValidationEndpointWire): ValidationEndpoint {
  return {
    id: String(e.id ?? ''),
    collabId: e.collabId ?? 0,
    url: e.url ?? '',
    priority: e.priority ?? 0,
    awaitable: e.awaitable ?? false,
    forCashIn: e.forCashIn ?? false,
    forCashOut: e.forCashOut ?? false,
  };
}
