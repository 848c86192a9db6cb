package sensitive

import "github.com/golang-jwt/jwt/v5"

// Header is the metadata key (gRPC) and header (REST: X-Paygate-Confirmation) of a confirmation token.
const Header = "x-paygate-confirmation"

// Audience is the audience of confirmation tokens, so that one can never pass for an access token.
const Audience = "paygate-confirmation"

// Proof kinds.
const (
	ProofWebAuthn = "webauthn"
	ProofTOTP     = "totp"
	ProofNone     = "none"
)

// Proof roles.
const (
	RoleActor     = "actor"
	RoleRequester = "requester"
	RoleApprover  = "approver"
)

// Proof is who approved exactly what: stored with the audit entry, re-verifiable later
// (POST /api/v1/confirmations/verify, services/auth/cmd/verify-proof).
type Proof struct {
	Kind           string `json:"kind"`
	Role           string `json:"role"`
	UserID         int64  `json:"userId"`
	Username       string `json:"username"`
	ConfirmationID string `json:"confirmationId"`
	// Action is the canonical description signed; Digest its hex SHA-256.
	Action    string `json:"action"`
	Digest    string `json:"digest"`
	Nonce     string `json:"nonce"`
	ExpiresAt int64  `json:"expiresAt"`
	// WebAuthn assertion, base64url.
	CredentialID      string `json:"credentialId,omitempty"`
	AuthenticatorData string `json:"authenticatorData,omitempty"`
	ClientDataJSON    string `json:"clientDataJson,omitempty"`
	Signature         string `json:"signature,omitempty"`
	// TOTP: the time step and HMAC-SHA256(server key, code ‖ digest), base64url.
	Step int64  `json:"step,omitempty"`
	MAC  string `json:"mac,omitempty"`
}

// Claims are a confirmation token's claims: the subject (user id) may apply exactly Action once
// (jti) before expiry.
type Claims struct {
	jwt.RegisteredClaims
	// Action is the canonical description; Digest its hex SHA-256.
	Action string `json:"act"`
	Digest string `json:"dig"`
	// Proof is the weakest proof kind among Proofs ("none" when step-up did not concern the user).
	Proof  string  `json:"prf"`
	Proofs []Proof `json:"proofs,omitempty"`
	// ApprovalRequestID and RequestedBy are set when the token applies an approved request.
	ApprovalRequestID int64 `json:"apr,omitempty"`
	RequestedBy       int64 `json:"rqb,omitempty"`
}
