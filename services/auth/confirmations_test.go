package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/jackc/pgx/v5"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// describe is the canonical description of a call of action with req, as
// the owning service answers it, and the request's bytes (base64).
func describe(t *testing.T, action string, req proto.Message, reason string) (string, string) {
	t.Helper()
	a, ok := sensitive.ByName(action)
	if !ok {
		t.Fatalf("no action %s", action)
	}
	d, err := sensitive.Describe(a, req, nil, reason)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(d.Canonical()), base64.StdEncoding.EncodeToString(b)
}

func begin(t *testing.T, in *instance, token, action, request, reason string) reply {
	t.Helper()
	return in.call(t, http.MethodPost, "/api/v1/confirmations", token, testIP(),
		map[string]any{"action": action, "request": request, "reason": reason})
}

func finishTOTP(t *testing.T, in *instance, token, id, code string) reply {
	t.Helper()
	return in.call(t, http.MethodPost, "/api/v1/confirmations/"+id+"/finish", token, testIP(), map[string]any{"totpCode": code})
}

// stepUp sets which actions need step-up, and for whom (nil: every one).
func stepUp(t *testing.T, in *instance, admin string, actions []string, scope string) {
	t.Helper()
	if actions == nil {
		for _, a := range sensitive.Catalogue {
			actions = append(actions, a.Name)
		}
	}
	wantStatus(t, "step-up settings", in.call(t, http.MethodPut, "/api/v1/sensitive-actions/step-up", admin, testIP(),
		map[string]any{"actions": actions, "scope": scope}), http.StatusOK)
}

// TestConfirmationTOTPAndApproval walks the TOTP confirmation, the binding
// of the challenge, the token, proof re-verification, a four-eyes policy, a
// refused self-decision and an approval applied by auth on itself.
func TestConfirmationTOTPAndApproval(t *testing.T) {
	in := confirmInstance(t)
	// Step-up for role.update alone, so that the admin sets the scene
	// without confirming; the defaults come back for TestConfirmClaim.
	stepUp(t, in, asAdmin(t, in), []string{"role.update"}, "admin_wide")
	t.Cleanup(func() { stepUp(t, in, asAdmin(t, in), nil, "admin_wide") })
	admin := asAdmin(t, in)
	u1 := addUser(t, in, admin, "cfm-req", 1, nil)
	u2 := addUser(t, in, admin, "cfm-apr", 1, nil)
	tok1, _ := in.mustLogin(t, u1.name, u1.password, testIP())
	tok2, _ := in.mustLogin(t, u2.name, u2.password, testIP())

	// Without a second factor, a concerned (admin-wide) user is sent to Account Security.
	roleID, _ := createRole(t, in, admin, "cfm", true, "Allow IP")
	newName := "cfm renamed " + randomHex(3)
	action, request := describe(t, "role.update", &authv1.UpdateRoleRequest{Id: int32(roleID), Name: newName, Permissions: []string{"Allow IP"}, GlobalScope: true}, "")
	wantStatus(t, "begin without a factor", begin(t, in, tok1, action, request, ""), http.StatusUnprocessableEntity)

	secret1 := func() string { s, _ := enrolTOTP(t, in, tok1); return s }()
	secret2 := func() string { s, _ := enrolTOTP(t, in, tok2); return s }()

	// One byte of the description changed: refused.
	wantStatus(t, "begin tampered", begin(t, in, tok1, strings.Replace(action, `"role.update"`, `"role.updatf"`, 1), request, ""), http.StatusBadRequest)

	b := begin(t, in, tok1, action, request, "")
	wantStatus(t, "begin", b, http.StatusOK)
	if b.str("method") != "totp" || b.str("digest") != sensitive.Digest([]byte(action)) {
		t.Fatalf("begin answered %v", b.body)
	}
	awayFromStepEdge()
	wantStatus(t, "finish with a wrong code", finishTOTP(t, in, tok2, b.str("confirmationId"), codeFor(t, secret1, 0)), http.StatusNotFound)
	f := finishTOTP(t, in, tok1, b.str("confirmationId"), codeFor(t, secret1, 0))
	wantStatus(t, "finish", f, http.StatusOK)
	claims := tokenClaims(t, f.str("token"))
	if claims["act"] != action || claims["prf"] != "totp" || claims["sub"] != u1.id || claims["aud"].([]any)[0] != sensitive.Audience {
		t.Fatalf("token claims %v", claims)
	}
	wantStatus(t, "second finish", finishTOTP(t, in, tok1, b.str("confirmationId"), codeFor(t, secret1, 1)), http.StatusConflict)

	// The proof re-verifies; tampered, it does not.
	proofs, _ := claims["proofs"].([]any)
	proof, _ := json.Marshal(proofs[0])
	v := in.call(t, http.MethodPost, "/api/v1/confirmations/verify", tok2, testIP(), map[string]any{"proof": string(proof)})
	wantStatus(t, "verify", v, http.StatusOK)
	if v.body["valid"] != true || v.str("kind") != "totp" {
		t.Fatalf("verify answered %v", v.body)
	}
	tampered := strings.Replace(string(proof), newName, newName+"x", 1)
	v = in.call(t, http.MethodPost, "/api/v1/confirmations/verify", tok2, testIP(), map[string]any{"proof": tampered})
	if v.body["valid"] == true || v.str("reason") == "" {
		t.Fatalf("tampered proof answered %v", v.body)
	}

	// A four-eyes policy on role.update.
	p := in.call(t, http.MethodPost, "/api/v1/approval-policies", admin, testIP(), map[string]any{"policy": map[string]any{"action": "role.update", "approverPermission": "Edit User"}})
	wantStatus(t, "create policy", p, http.StatusOK)
	policyID := fmt.Sprint(p.body["policy"].(map[string]any)["id"])
	t.Cleanup(func() { in.call(t, http.MethodDelete, "/api/v1/approval-policies/"+policyID, admin, testIP(), nil) })
	bad := in.call(t, http.MethodPost, "/api/v1/approval-policies", admin, testIP(), map[string]any{"policy": map[string]any{"action": "role.update", "approverPermission": "Nope"}})
	if wantStatus(t, "bad policy", bad, http.StatusBadRequest); !strings.Contains(bad.str("message"), "approverPermission") {
		t.Fatalf("bad policy: %v", bad.body)
	}

	b = begin(t, in, tok1, action, request, "")
	wantStatus(t, "begin with policy", b, http.StatusOK)
	if ap, _ := b.body["approval"].(map[string]any); ap["required"] != true || ap["approverPermission"] != "Edit User" {
		t.Fatalf("approval %v", b.body)
	}
	f = finishTOTP(t, in, tok1, b.str("confirmationId"), codeFor(t, secret1, 1))
	wantStatus(t, "finish with policy", f, http.StatusOK)
	reqID := idOf(f.body["approvalRequestId"])
	if f.str("token") != "" || reqID == "" {
		t.Fatalf("finish with policy answered %v", f.body)
	}

	// The requester cannot decide its own request.
	wantStatus(t, "self reject", in.call(t, http.MethodPost, "/api/v1/approvals/"+reqID+"/reject", tok1, testIP(), map[string]any{"reason": "no"}), http.StatusForbidden)
	// The approver sees it pending and counts it.
	c := in.call(t, http.MethodGet, "/api/v1/approvals/pending-count", tok2, testIP(), nil)
	if n, _ := c.body["count"].(float64); n < 1 {
		t.Fatalf("count %v", c.body)
	}
	l := in.call(t, http.MethodGet, "/api/v1/approvals?status=pending&action=role.update", tok2, testIP(), nil)
	wantStatus(t, "list", l, http.StatusOK)
	var ids []string
	for _, x := range l.body["requests"].([]any) {
		ids = append(ids, idOf(x.(map[string]any)["id"]))
	}
	if !slices.Contains(ids, reqID) {
		t.Fatalf("pending list %v lacks %s", ids, reqID)
	}

	// A merchant-scoped user, even one holding Edit User, neither sees nor
	// decides another user's request (it may reach beyond its merchants).
	mtok, _ := in.mustLogin(t, "merchant-admin", "paygate-demo", testIP())
	if !slices.Contains(stringsOf(tokenClaims(t, mtok)["permissions"]), "Edit User") {
		t.Fatalf("merchant-admin lacks Edit User: %v", tokenClaims(t, mtok)["permissions"])
	}
	wantStatus(t, "merchant get", in.call(t, http.MethodGet, "/api/v1/approvals/"+reqID, mtok, testIP(), nil), http.StatusNotFound)
	wantStatus(t, "merchant reject", in.call(t, http.MethodPost, "/api/v1/approvals/"+reqID+"/reject", mtok, testIP(), map[string]any{"reason": "no"}), http.StatusNotFound)
	if c := in.call(t, http.MethodGet, "/api/v1/approvals/pending-count", mtok, testIP(), nil); c.body["count"] != nil && c.body["count"] != float64(0) {
		t.Fatalf("merchant count %v", c.body)
	}
	if l := in.call(t, http.MethodGet, "/api/v1/approvals?status=pending", mtok, testIP(), nil); len(l.body["requests"].([]any)) != 0 {
		t.Fatalf("merchant list %v", l.body)
	}

	// Approving needs the approver's own confirmation of approval.approve.
	var id int64
	fmt.Sscan(reqID, &id)
	cc, err := grpc.NewClient(in.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	client := authv1.NewApprovalServiceClient(cc)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok2)
	if _, err := client.ApproveRequest(ctx, &authv1.ApproveRequestRequest{Id: id}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("approve without confirmation: %v", err)
	}
	apAction, apRequest := describe(t, "approval.approve", &authv1.ApproveRequestRequest{Id: id}, "")
	b = begin(t, in, tok2, apAction, apRequest, "")
	wantStatus(t, "begin approval", b, http.StatusOK)
	f = finishTOTP(t, in, tok2, b.str("confirmationId"), codeFor(t, secret2, 0))
	wantStatus(t, "finish approval", f, http.StatusOK)
	res, err := client.ApproveRequest(metadata.AppendToOutgoingContext(ctx, sensitive.Header, f.str("token")), &authv1.ApproveRequestRequest{Id: id})
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	if r := res.GetRequest(); r.GetStatus() != "approved" || len(r.GetProofs()) != 2 || r.GetDecidedBy() == 0 {
		t.Fatalf("approved request %v", r)
	}
	if got := listedRole(t, in, admin, roleID); got == nil || got["name"] != newName {
		t.Fatalf("role after approval: %v", got)
	}
	// Auth applied the change to itself through its stepup guard, which kept
	// the confirmation with both proofs; the approver's own token too.
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var applied, nproofs int
	if err := conn.QueryRow(context.Background(), fmt.Sprintf(`SELECT count(*), coalesce(max(jsonb_array_length(proofs)), 0)
		FROM %s.used_confirmations WHERE action = 'role.update' AND approval_request_id = $1`, confirmSchema), id).Scan(&applied, &nproofs); err != nil {
		t.Fatal(err)
	}
	if applied != 1 || nproofs != 2 {
		t.Fatalf("used_confirmations of the approved change: %d rows, %d proofs", applied, nproofs)
	}
	if err := conn.QueryRow(context.Background(), fmt.Sprintf(`SELECT count(*) FROM %s.used_confirmations WHERE action = 'approval.approve' AND user_id = $1`,
		confirmSchema), u2.id).Scan(&applied); err != nil || applied != 1 {
		t.Fatalf("used_confirmations of the approval: %d (%v)", applied, err)
	}
	// The same token once more: refused.
	if _, err := client.ApproveRequest(metadata.AppendToOutgoingContext(ctx, sensitive.Header, f.str("token")), &authv1.ApproveRequestRequest{Id: id}); err == nil {
		t.Fatal("second approval accepted")
	}
}

// TestConfirmClaim: by default every action is in an admin-wide user's cfm
// claim, and only approval.approve in a merchant-scoped user's.
func TestConfirmClaim(t *testing.T) {
	in := confirmInstance(t)
	cfm := func(token string) []string {
		var out []string
		for _, x := range tokenClaims(t, token)["cfm"].([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	admin := cfm(asAdmin(t, in))
	if !slices.Contains(admin, "fee.update") || !slices.Contains(admin, "approval.approve") {
		t.Fatalf("admin cfm %v", admin)
	}
	merchant, _ := in.mustLogin(t, "merchant", "paygate-demo", testIP())
	if got := cfm(merchant); slices.Contains(got, "fee.update") || !slices.Contains(got, "approval.approve") {
		t.Fatalf("merchant cfm %v", got)
	}
}

// TestApprovalExpires: a pending request past its expiry reads as expired
// and can no longer be decided; nothing is applied.
func TestApprovalExpires(t *testing.T) {
	in := confirmInstance(t)
	stepUp(t, in, asAdmin(t, in), []string{"role.update"}, "admin_wide")
	t.Cleanup(func() { stepUp(t, in, asAdmin(t, in), nil, "admin_wide") })
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "cfm-exp", 1, nil)
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())
	secret, _ := enrolTOTP(t, in, tok)
	roleID, oldName := createRole(t, in, admin, "exp", true, "Allow IP")

	p := in.call(t, http.MethodPost, "/api/v1/approval-policies", admin, testIP(), map[string]any{"policy": map[string]any{"action": "role.update", "approverPermission": "Edit User"}})
	wantStatus(t, "create policy", p, http.StatusOK)
	policyID := fmt.Sprint(p.body["policy"].(map[string]any)["id"])
	t.Cleanup(func() { in.call(t, http.MethodDelete, "/api/v1/approval-policies/"+policyID, admin, testIP(), nil) })

	action, request := describe(t, "role.update", &authv1.UpdateRoleRequest{Id: int32(roleID), Name: oldName + " x", Permissions: []string{"Allow IP"}, GlobalScope: true}, "")
	b := begin(t, in, tok, action, request, "")
	wantStatus(t, "begin", b, http.StatusOK)
	f := finishTOTP(t, in, tok, b.str("confirmationId"), codeFor(t, secret, 1))
	wantStatus(t, "finish", f, http.StatusOK)
	reqID := idOf(f.body["approvalRequestId"])

	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), fmt.Sprintf(`UPDATE %s.approval_requests SET expires_at = now() - interval '1 second' WHERE id = $1`, confirmSchema), reqID); err != nil {
		t.Fatal(err)
	}
	g := in.call(t, http.MethodGet, "/api/v1/approvals/"+reqID, tok, testIP(), nil)
	wantStatus(t, "get", g, http.StatusOK)
	if r, _ := g.body["request"].(map[string]any); r["status"] != "expired" {
		t.Fatalf("request past its expiry: %v", g.body)
	}
	wantStatus(t, "reject expired", in.call(t, http.MethodPost, "/api/v1/approvals/"+reqID+"/reject", admin, testIP(), map[string]any{"reason": "late"}), http.StatusConflict)
	l := in.call(t, http.MethodGet, "/api/v1/approvals?status=expired&mine=true", tok, testIP(), nil)
	wantStatus(t, "list expired", l, http.StatusOK)
	if rs, _ := l.body["requests"].([]any); len(rs) != 1 || idOf(rs[0].(map[string]any)["id"]) != reqID {
		t.Fatalf("expired list %v", l.body)
	}
	if got := listedRole(t, in, admin, roleID); got == nil || got["name"] != oldName {
		t.Fatalf("role after expiry: %v", got)
	}
}
