// The single entry of @paygate/sdk. Host and remotes share the package as a
// Module Federation singleton by this exact name, so every import goes
// through this file (a deep import would load a second copy).
export * from './access';
export * from './api-client';
export * from './api-error';
export * from './auth';
export * from './collab-choices';
export * from './config';
export * from './confirmation';
export * from './confirm-dialog';
export * from './console';
export * from './data-table';
export * from './device-name';
export * from './dialog-frame';
export * from './flag-switch';
export * from './jwt';
export * from './may-call';
export * from './merchant-filter';
export * from './merchants';
export * from './money';
export * from './page-frame';
export * from './page-title';
export * from './pager';
export * from './passkeys';
export * from './password-policy';
export * from './preferences';
export * from './remote';
export * from './requirement';
export * from './legacy-roles';
export * from './remote-module';
export * from './route-table';
export * from './second-factor';
export * from './session';
export * from './storage';
export * from './timezone';
export * from './toast';
export * from './transaction-stream';
