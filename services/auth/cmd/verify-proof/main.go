// Command verify-proof re-verifies a stored confirmation proof (the JSON of
// docs/contracts-approvals.md "A proof", on stdin) against auth's database:
// the passkey signature with the credential's stored public key over the
// recomputed challenge, or the TOTP proof's MAC. It prints the verdict and
// exits 1 when the proof does not hold. It shares the auth service's code
// (confirmation.Service.VerifyProof).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/paygate/paygate/services/auth/internal/confirmation"
	"github.com/paygate/paygate/services/auth/internal/passkey"
	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/auth/internal/secondfactor"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/pgdb"
)

func main() {
	code, err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "verify-proof:", err)
	}
	os.Exit(code)
}

// run verifies the proof on stdin; it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("verify-proof", flag.ContinueOnError)
	dbURL := fs.String("database-url", getenv("PAYGATE_DATABASE_URL"), "auth's Postgres (env PAYGATE_DATABASE_URL)")
	schema := fs.String("schema", "auth", "auth's schema")
	rpID := fs.String("rp-id", envOr(getenv, "PAYGATE_WEBAUTHN_RP_ID", "localhost"), "the passkeys' relying party id")
	origins := fs.String("origins", envOr(getenv, "PAYGATE_WEBAUTHN_ORIGINS", "http://localhost:8080"), "the console's origins, comma separated")
	demo := fs.Bool("demo", getenv("PAYGATE_DEMO") == "true", "use the demo encryption key when none is set")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	proof, err := io.ReadAll(stdin)
	if err != nil {
		return 2, err
	}
	pool, err := pgdb.Open(ctx, *dbURL, *schema)
	if err != nil {
		return 2, err
	}
	defer pool.Close()
	box, err := keyring.FromConfig("PAYGATE_ENCRYPTION_KEYS", getenv("PAYGATE_ENCRYPTION_KEYS"), "PAYGATE_ENCRYPTION_KEY", getenv("PAYGATE_ENCRYPTION_KEY"), *demo)
	if err != nil {
		return 2, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pk, err := passkey.New(passkey.Config{RPID: *rpID, RPDisplayName: "Paygate", Origins: strings.Split(*origins, ",")}, postgres.NewPasskeys(pool), nil, log, nil)
	if err != nil {
		return 2, err
	}
	totp := secondfactor.New(postgres.New(pool), box, nil, nil, nil, log, nil, secondfactor.Config{})
	svc := confirmation.New(postgres.NewConfirmations(pool), Passkeys{pk}, totp, box, nil, nil, nil, log, nil, confirmation.Config{})
	v, err := svc.VerifyProof(ctx, string(proof))
	if err != nil {
		return 2, err
	}
	if v.Valid {
		fmt.Fprintf(stdout, "valid: a %s proof by %s (user %d)\n", v.Kind, v.Username, v.UserID)
		return 0, nil
	}
	fmt.Fprintf(stdout, "not valid (%s): %s\n", v.Kind, v.Reason)
	return 1, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// Passkeys adapts the passkey service to confirmation.Passkeys.
type Passkeys struct{ *passkey.Service }

// VerifyAssertion implements confirmation.Passkeys (unused here).
func (p Passkeys) VerifyAssertion(ctx context.Context, userID int64, challenge, response []byte) (confirmation.Assertion, error) {
	a, err := p.Service.VerifyAssertion(ctx, userID, challenge, response)
	return confirmation.Assertion(a), err
}
