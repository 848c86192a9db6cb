// Code generated from the auth service's authorization rules by services/internal/callrules (make call-rules). DO NOT EDIT.

import type { CallRule } from '../call-rule';

/** AUTH_CALLS: who may call each method of the auth service (its Go Rules table), and its REST routes. */
export const AUTH_CALLS = {
  '/paygate.auth.v1.AllowedIpService/CreateAllowedIp': {
    http: ['POST /api/v1/user/users/ips'],
    rule: { permissions: ['Allow IP'] },
  },
  '/paygate.auth.v1.AllowedIpService/DeleteAllowedIp': {
    http: ['DELETE /api/v1/user/users/ips/{id}'],
    rule: { permissions: ['Allow IP'] },
  },
  '/paygate.auth.v1.AllowedIpService/ListUserAllowedIps': {
    http: ['GET /api/v1/user/users/{id}/ips'],
    rule: { permissions: ['Allow IP'] },
  },
  '/paygate.auth.v1.AllowedIpService/UpdateAllowedIp': {
    http: ['POST /api/v1/user/users/ips/{id}'],
    rule: { permissions: ['Allow IP'] },
  },
  '/paygate.auth.v1.ApprovalService/ApproveRequest': {
    http: ['POST /api/v1/approvals/{id}/approve'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ApprovalService/CountPendingApprovals': {
    http: ['GET /api/v1/approvals/pending-count'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ApprovalService/CreateApprovalPolicy': {
    http: ['POST /api/v1/approval-policies'],
    rule: { requires: 'securityPolicy' },
  },
  '/paygate.auth.v1.ApprovalService/DeleteApprovalPolicy': {
    http: ['DELETE /api/v1/approval-policies/{id}'],
    rule: { requires: 'securityPolicy' },
  },
  '/paygate.auth.v1.ApprovalService/GetApprovalRequest': {
    http: ['GET /api/v1/approvals/{id}'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ApprovalService/ListApprovalPolicies': {
    http: ['GET /api/v1/approval-policies'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ApprovalService/ListApprovalRequests': {
    http: ['GET /api/v1/approvals'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ApprovalService/RejectRequest': {
    http: ['POST /api/v1/approvals/{id}/reject'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ApprovalService/UpdateApprovalPolicy': {
    http: ['PUT /api/v1/approval-policies/{id}'],
    rule: { requires: 'securityPolicy' },
  },
  '/paygate.auth.v1.AuthService/ChangeOwnPassword': {
    http: ['POST /api/v1/user/change-password'],
    rule: { authenticated: true, allowTemporaryPassword: true },
  },
  '/paygate.auth.v1.AuthService/Login': {
    http: ['POST /api/v1/login'],
    rule: { public: true },
  },
  '/paygate.auth.v1.AuthService/Logout': {
    http: ['POST /api/v1/logout'],
    rule: { authenticated: true, allowTemporaryPassword: true },
  },
  '/paygate.auth.v1.AuthService/RefreshToken': {
    http: ['POST /api/v1/refresh-token'],
    rule: { public: true },
  },
  '/paygate.auth.v1.AuthService/ValidateToken': {
    http: ['GET /api/v1/validate-token'],
    rule: { authenticated: true, allowTemporaryPassword: true },
  },
  '/paygate.auth.v1.AuthSettingsService/CheckPassword': {
    http: ['POST /api/v1/password-policy/check'],
    rule: { authenticated: true, allowTemporaryPassword: true },
  },
  '/paygate.auth.v1.AuthSettingsService/GetAuthSettings': {
    http: ['GET /api/v1/auth-settings'],
    rule: { permissions: ['Settings Access'] },
  },
  '/paygate.auth.v1.AuthSettingsService/GetPasswordPolicy': {
    http: ['GET /api/v1/password-policy'],
    rule: { authenticated: true, allowTemporaryPassword: true },
  },
  '/paygate.auth.v1.AuthSettingsService/UpdateAuthSettings': {
    http: ['PUT /api/v1/auth-settings'],
    rule: { permissions: ['Settings Access'] },
  },
  '/paygate.auth.v1.ConfirmationService/BeginConfirmation': {
    http: ['POST /api/v1/confirmations'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ConfirmationService/FinishConfirmation': {
    http: ['POST /api/v1/confirmations/{confirmationId}/finish'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ConfirmationService/ListSensitiveActions': {
    http: ['GET /api/v1/sensitive-actions'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.ConfirmationService/UpdateStepUpSettings': {
    http: ['PUT /api/v1/sensitive-actions/step-up'],
    rule: { requires: 'securityPolicy' },
  },
  '/paygate.auth.v1.ConfirmationService/VerifyProof': {
    http: ['POST /api/v1/confirmations/verify'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.RoleService/CreateRole': {
    http: ['POST /api/v1/roles'],
    rule: { requires: 'manageRoles' },
  },
  '/paygate.auth.v1.RoleService/DeleteRole': {
    http: ['DELETE /api/v1/roles/{id}'],
    rule: { requires: 'manageRoles' },
  },
  '/paygate.auth.v1.RoleService/UpdateRole': {
    http: ['PUT /api/v1/roles/{id}'],
    rule: { requires: 'manageRoles' },
  },
  '/paygate.auth.v1.SecondFactorService/BeginSignInEnrolment': {
    http: ['POST /api/v1/login/second-factor/enrol/begin'],
    rule: { public: true },
  },
  '/paygate.auth.v1.SecondFactorService/BeginTotpEnrolment': {
    http: ['POST /api/v1/second-factor/totp/begin'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.SecondFactorService/CompleteSecondFactorLogin': {
    http: ['POST /api/v1/login/second-factor'],
    rule: { public: true },
  },
  '/paygate.auth.v1.SecondFactorService/CompleteSignInEnrolment': {
    http: ['POST /api/v1/login/second-factor/enrol/complete'],
    rule: { public: true },
  },
  '/paygate.auth.v1.SecondFactorService/ConfirmTotpEnrolment': {
    http: ['POST /api/v1/second-factor/totp/confirm'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.SecondFactorService/DisableSecondFactor': {
    http: ['POST /api/v1/second-factor/disable'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.SecondFactorService/GetSecondFactor': {
    http: ['GET /api/v1/second-factor'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.SecondFactorService/RegenerateRecoveryCodes': {
    http: ['POST /api/v1/second-factor/recovery-codes'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.SecondFactorService/ResetUserSecondFactor': {
    http: ['POST /api/v1/user/{userId}/second-factor/reset'],
    rule: { permissions: ['Edit User'] },
  },
  '/paygate.auth.v1.SessionService/ListActiveSessions': {
    http: ['GET /api/v1/user-sessions/active'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.SessionService/TerminateSession': {
    http: ['DELETE /api/v1/user-sessions/{id}'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.UserService/AddUser': {
    http: ['POST /api/v1/user/add'],
    rule: { permissions: ['Add Users'] },
  },
  '/paygate.auth.v1.UserService/ChangeUserPassword': {
    http: ['POST /api/v1/user/{id}/change-password'],
    rule: { permissions: ['Edit User'] },
  },
  '/paygate.auth.v1.UserService/ListRoles': {
    http: ['GET /api/v1/user/roles'],
    rule: { permissions: ['Add Users'] },
  },
  '/paygate.auth.v1.UserService/ListUsers': {
    http: ['GET /api/v1/user/users'],
    rule: { permissions: ['Add Users'] },
  },
  '/paygate.auth.v1.UserService/UpdateUser': {
    http: ['PUT /api/v1/user'],
    rule: { permissions: ['Edit User', 'Add Users'] },
  },
  '/paygate.auth.v1.WebAuthnService/BeginPasskeyLogin': {
    http: ['POST /api/v1/webauthn/authenticate/options'],
    rule: { public: true },
  },
  '/paygate.auth.v1.WebAuthnService/BeginPasskeyRegistration': {
    http: ['POST /api/v1/webauthn/register/options'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.WebAuthnService/DeletePasskey': {
    http: ['DELETE /api/v1/webauthn/credentials/{id}'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.WebAuthnService/FinishPasskeyLogin': {
    http: ['POST /api/v1/webauthn/authenticate/complete'],
    rule: { public: true },
  },
  '/paygate.auth.v1.WebAuthnService/FinishPasskeyRegistration': {
    http: ['POST /api/v1/webauthn/register/complete'],
    rule: { authenticated: true },
  },
  '/paygate.auth.v1.WebAuthnService/ListPasskeys': {
    http: ['GET /api/v1/webauthn/credentials'],
    rule: { authenticated: true },
  },
} as const satisfies Record<string, CallRule>;
