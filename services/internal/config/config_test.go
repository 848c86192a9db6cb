package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/config"
)

type serviceConfig struct {
	config.Common
	AccessTokenTTL time.Duration `env:"PAYGATE_ACCESS_TOKEN_TTL" default:"5m"`
	MaxItems       int64         `env:"PAYGATE_TEST_MAX_ITEMS" default:"100"`
	AdminPassword  string        `env:"PAYGATE_ADMIN_PASSWORD"`
	Ignored        string
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	var cfg serviceConfig
	if err := config.Load(env(nil), &cfg, config.Ports(":8082", ":9082")); err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := serviceConfig{
		Common: config.Common{
			DatabaseURL:        "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable",
			RedisURL:           "redis://127.0.0.1:6379/0",
			NATSURL:            "nats://127.0.0.1:4222",
			NATSStreamReplicas: 1,
			HTTPAddr:           ":8082",
			GRPCAddr:           ":9082",
			ConsoleOrigins:     []string{"http://localhost:8080", "http://127.0.0.1:8080"},
			JWKSURL:            "http://127.0.0.1:8081/.well-known/jwks.json",
			Demo:               false,
			LogLevel:           "info",
			TrustedProxyHops:   0,
		},
		AccessTokenTTL: 5 * time.Minute,
		MaxItems:       100,
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("Load defaults:\n got %+v\nwant %+v", cfg, want)
	}
}

func TestLoadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, c serviceConfig)
	}{
		{
			name: "environment beats option defaults",
			env:  map[string]string{"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_GRPC_ADDR": "127.0.0.1:1"},
			check: func(t *testing.T, c serviceConfig) {
				if c.HTTPAddr != "127.0.0.1:0" || c.GRPCAddr != "127.0.0.1:1" {
					t.Errorf("addrs = %q %q", c.HTTPAddr, c.GRPCAddr)
				}
			},
		},
		{
			name: "lists are trimmed and blanks dropped",
			env:  map[string]string{"PAYGATE_CONSOLE_ORIGINS": " http://a.test , ,http://b.test"},
			check: func(t *testing.T, c serviceConfig) {
				if !reflect.DeepEqual(c.ConsoleOrigins, []string{"http://a.test", "http://b.test"}) {
					t.Errorf("origins = %q", c.ConsoleOrigins)
				}
			},
		},
		{
			name: "scalars parse",
			env: map[string]string{
				"PAYGATE_DEMO": "true", "PAYGATE_TRUSTED_PROXY_HOPS": "2",
				"PAYGATE_ACCESS_TOKEN_TTL": "90s", "PAYGATE_TEST_MAX_ITEMS": "9000000000",
				"PAYGATE_LOG_LEVEL": "debug", "PAYGATE_ADMIN_PASSWORD": "s3cret",
			},
			check: func(t *testing.T, c serviceConfig) {
				if !c.Demo || c.TrustedProxyHops != 2 || c.AccessTokenTTL != 90*time.Second ||
					c.MaxItems != 9_000_000_000 || c.LogLevel != "debug" || c.AdminPassword != "s3cret" {
					t.Errorf("config = %+v", c)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var cfg serviceConfig
			if err := config.Load(env(tt.env), &cfg, config.Ports(":8082", ":9082")); err != nil {
				t.Fatalf("Load: %v", err)
			}
			tt.check(t, cfg)
		})
	}
}

func TestLoadListsEveryBadKey(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"PAYGATE_DEMO":               "yes please",
		"PAYGATE_TRUSTED_PROXY_HOPS": "two",
		"PAYGATE_ACCESS_TOKEN_TTL":   "5 minutes",
		"PAYGATE_TEST_MAX_ITEMS":     "1e3",
		"PAYGATE_LOG_LEVEL":          "loud",
		// A JetStream stream's replicas are 1, 3 or 5 (an even count
		// tolerates no more failures than the odd one below it).
		"PAYGATE_NATS_STREAM_REPLICAS": "2",
	}
	var cfg serviceConfig
	// No Ports option: the addresses are required and missing.
	err := config.Load(env(bad), &cfg)
	if err == nil {
		t.Fatal("Load accepted bad values")
	}
	for _, key := range []string{
		"PAYGATE_DEMO", "PAYGATE_TRUSTED_PROXY_HOPS", "PAYGATE_ACCESS_TOKEN_TTL",
		"PAYGATE_TEST_MAX_ITEMS", "PAYGATE_LOG_LEVEL", "PAYGATE_NATS_STREAM_REPLICAS", "PAYGATE_HTTP_ADDR is required",
		"PAYGATE_GRPC_ADDR is required",
	} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
}

func TestLoadRejectsBadTargets(t *testing.T) {
	t.Parallel()
	type unsupported struct {
		F float64 `env:"PAYGATE_F" default:"1"`
	}
	tests := []struct {
		name string
		dst  any
	}{
		{"not a pointer", serviceConfig{}},
		{"nil pointer", (*serviceConfig)(nil)},
		{"unsupported type", &unsupported{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := config.Load(env(nil), tt.dst); err == nil {
				t.Fatal("Load succeeded")
			}
		})
	}
}

func TestInternalToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{"demo default", map[string]string{"PAYGATE_DEMO": "true"}, config.DemoInternalToken, ""},
		{"demo with a token", map[string]string{"PAYGATE_DEMO": "true", "PAYGATE_INTERNAL_TOKEN": "0123456789abcdef-x"}, "0123456789abcdef-x", ""},
		{"production without a token", nil, "", "PAYGATE_INTERNAL_TOKEN is required"},
		{"production with a short token", map[string]string{"PAYGATE_INTERNAL_TOKEN": "short"}, "", "too short"},
		{"production with a token", map[string]string{"PAYGATE_INTERNAL_TOKEN": "0123456789abcdef"}, "0123456789abcdef", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c config.Common
			if err := config.Load(func(k string) string { return tt.env[k] }, &c, config.Ports(":1", ":2")); err != nil {
				t.Fatal(err)
			}
			got, err := c.Internal()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Internal() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Internal() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// checkedConfig judges its own values: MaxItems at most 10.
type checkedConfig struct {
	config.Common
	MaxItems int64 `env:"PAYGATE_TEST_MAX_ITEMS" default:"5"`
	MinItems int64 `env:"PAYGATE_TEST_MIN_ITEMS" default:"1"`
}

func (c checkedConfig) Check() []string {
	var problems []string
	if c.MaxItems > 10 || c.MaxItems < 1 {
		problems = append(problems, "PAYGATE_TEST_MAX_ITEMS must be between 1 and 10")
	}
	if c.MinItems < 1 {
		problems = append(problems, "PAYGATE_TEST_MIN_ITEMS must be at least 1")
	}
	return problems
}

func TestLoadReportsChecksWithParseProblems(t *testing.T) {
	t.Parallel()
	var cfg checkedConfig
	err := config.Load(env(map[string]string{
		"PAYGATE_DEMO":           "perhaps", // cannot be parsed
		"PAYGATE_TEST_MIN_ITEMS": "0",       // parsed, refused by Check
		"PAYGATE_TEST_MAX_ITEMS": "ten",     // cannot be parsed: reported once
	}), &cfg, config.Ports(":1", ":2"))
	if err == nil {
		t.Fatal("Load accepted bad values")
	}
	msg := err.Error()
	for _, want := range []string{"PAYGATE_DEMO", "PAYGATE_TEST_MIN_ITEMS must be at least 1", `PAYGATE_TEST_MAX_ITEMS="ten"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(msg, "between 1 and 10") {
		t.Errorf("a key that could not be parsed is reported twice: %v", err)
	}
	if err := config.Load(env(nil), &cfg, config.Ports(":1", ":2")); err != nil {
		t.Fatalf("good config refused: %v", err)
	}
}
