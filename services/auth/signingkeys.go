package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// signingKeysUsage is the help of "auth signing-keys".
const signingKeysUsage = `usage: auth signing-keys list | add | activate <kid> | retire <kid>

  list           the keys: which one signs, which are published, which are retired
  add            add a key that is published in the JWKS but does not sign yet
  activate <kid> make a published key the one that signs (the others keep verifying)
  retire <kid>   stop publishing a key: the tokens it signed are refused from then on

A rotation: add; wait until every verifier knows the new key; activate it; wait until
the tokens of the old key have expired; retire the old key (docs/operations.md, "Rotate keys").`

// signingKeysCommand is "auth signing-keys": it changes the keys in the
// database with the service's configuration (PAYGATE_DATABASE_URL,
// PAYGATE_DATABASE_SCHEMA); running replicas take the change within
// PAYGATE_SIGNING_KEY_RELOAD_INTERVAL.
func signingKeysCommand(ctx context.Context, getenv func(string) string, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(signingKeysUsage)
	}
	switch wantArgs := map[string]int{"list": 1, "add": 1, "activate": 2, "retire": 2}[args[0]]; {
	case wantArgs == 0:
		return fmt.Errorf("unknown command %q\n%s", args[0], signingKeysUsage)
	case len(args) != wantArgs:
		return errors.New(signingKeysUsage)
	}
	var cfg Config
	if err := config.Load(getenv, &cfg, config.Ports(":8081", ":9081")); err != nil {
		return err
	}
	if err := pgdb.Migrate(ctx, cfg.DatabaseURL, cfg.Schema, postgres.Migrations(),
		pgdb.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, cfg.Schema)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.New(pool)
	// How long until every replica signs with, or stops accepting, a key.
	reload := cfg.SigningKeyReload
	switch args[0] {
	case "list":
		return listSigningKeys(ctx, store, stdout)
	case "add":
		kid, err := store.AddSigningKey(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "added signing key %s: published, not signing.\n"+
			"Every auth replica publishes it within %s, and the other services fetch it within %s at the latest;\n"+
			"then make it sign: auth signing-keys activate %s\n", kid, reload, reload+authz.JWKSMaxAge, kid)
		return err
	case "activate":
		if err := store.ActivateSigningKey(ctx, args[1]); err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "signing key %s signs from now on (every auth replica within %s).\n"+
			"Tokens of the previous key stay valid until they expire: retire it no earlier than %s from now,\n"+
			"after PAYGATE_ACCESS_TOKEN_TTL (%s) and the verifiers' leeway.\n",
			args[1], reload, (reload + cfg.AccessTTL + authz.Leeway).Round(time.Second), cfg.AccessTTL)
		return err
	case "retire":
		if err := store.RetireSigningKey(ctx, args[1]); err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "signing key %s retired: every auth replica refuses its tokens within %s, "+
			"the other services once their copy of the JWKS is refreshed (within %s).\n", args[1], reload, authz.JWKSMaxAge)
		return err
	}
	return errors.New(signingKeysUsage)
}

func listSigningKeys(ctx context.Context, store *postgres.Store, stdout io.Writer) error {
	keys, err := store.ListSigningKeys(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KID\tSTATE\tCREATED\tACTIVATED\tRETIRED")
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, k := range keys {
		state := "published"
		switch {
		case !k.RetiredAt.IsZero():
			state = "retired"
		case k.Signing:
			state = "signing"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k.ID, state, at(k.CreatedAt), at(k.ActivatedAt), at(k.RetiredAt))
	}
	return w.Flush()
}
