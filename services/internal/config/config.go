// Package config fills a service's configuration struct from PAYGATE_*
// environment variables, read through an injected getenv so that tests never
// touch the process environment.
//
// Fields are described by struct tags:
//
//	HTTPAddr string        `env:"PAYGATE_HTTP_ADDR" required:"true"`
//	TTL      time.Duration `env:"PAYGATE_ACCESS_TOKEN_TTL" default:"5m"`
//
// Supported field types are string, int, int64, bool, time.Duration and
// []string (comma separated, blanks trimmed, empty items dropped). Embedded
// structs (such as Common) are walked. A `oneof:"a,b,c"` tag restricts a
// string to the listed values; `required:"true"` rejects an empty value. Load reports every bad key in one
// error.
//
// Per-service defaults: a service gives the defaults that differ between
// services (its HTTP and gRPC ports) as options, which take precedence over
// the default tags but not over the environment:
//
//	err := config.Load(getenv, &cfg, config.Default(config.KeyHTTPAddr, ":8082"),
//		config.Default(config.KeyGRPCAddr, ":9082"))
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Keys of the shared settings (docs/contracts.md).
const (
	KeyDatabaseURL      = "PAYGATE_DATABASE_URL"
	KeyDatabaseReadURL  = "PAYGATE_DATABASE_READ_URL"
	KeyRedisURL         = "PAYGATE_REDIS_URL"
	KeyNATSURL          = "PAYGATE_NATS_URL"
	KeyHTTPAddr         = "PAYGATE_HTTP_ADDR"
	KeyGRPCAddr         = "PAYGATE_GRPC_ADDR"
	KeyConsoleOrigins   = "PAYGATE_CONSOLE_ORIGINS"
	KeyJWKSURL          = "PAYGATE_JWKS_URL"
	KeyAuthGRPCURL      = "PAYGATE_AUTH_GRPC_URL"
	KeyDemo             = "PAYGATE_DEMO"
	KeyLogLevel         = "PAYGATE_LOG_LEVEL"
	KeyTrustedProxyHops = "PAYGATE_TRUSTED_PROXY_HOPS"
	KeyInternalToken    = "PAYGATE_INTERNAL_TOKEN"
)

// DemoInternalToken is the internal token of demo mode (PAYGATE_DEMO=true
// without PAYGATE_INTERNAL_TOKEN). It is public: never use it outside a
// local demo.
const DemoInternalToken = "paygate-demo-internal-token"

// Common holds the settings every service shares. Services embed it in their
// own Config and give their HTTP and gRPC address defaults to Load with
// Default; without them those two keys are required.
type Common struct {
	// DatabaseURL is the Postgres URL; each service uses its own schema in it.
	DatabaseURL string `env:"PAYGATE_DATABASE_URL" default:"postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable"`
	// DatabaseReadURL is a read-only copy of DatabaseURL's database (a
	// streaming replica) for the reads that tolerate its lag: lists,
	// counts, exports, fee previews, statistics rebuilds
	// (docs/operations.md, "Read replica"). Empty or equal to DatabaseURL:
	// those reads use the primary's pool.
	DatabaseReadURL string `env:"PAYGATE_DATABASE_READ_URL"`
	// RedisURL is the Redis URL (rate limits, revocations, locks).
	RedisURL string `env:"PAYGATE_REDIS_URL" default:"redis://127.0.0.1:6379/0"`
	// NATSURL is the NATS server URL (JetStream events).
	NATSURL string `env:"PAYGATE_NATS_URL" default:"nats://127.0.0.1:4222"`
	// NATSStreamReplicas is how many JetStream servers keep the events
	// stream: 1 on a single server, 3 (or 5) on a cluster so that losing a
	// server loses no event.
	NATSStreamReplicas int `env:"PAYGATE_NATS_STREAM_REPLICAS" default:"1" oneof:"1,3,5"`
	// HTTPAddr is the listen address of REST, health and metrics.
	HTTPAddr string `env:"PAYGATE_HTTP_ADDR" required:"true"`
	// GRPCAddr is the listen address of gRPC.
	GRPCAddr string `env:"PAYGATE_GRPC_ADDR" required:"true"`
	// ConsoleOrigins is the CORS allow-list.
	ConsoleOrigins []string `env:"PAYGATE_CONSOLE_ORIGINS" default:"http://localhost:8080,http://127.0.0.1:8080"`
	// JWKSURL is where verifiers fetch the auth service's public keys.
	JWKSURL string `env:"PAYGATE_JWKS_URL" default:"http://127.0.0.1:8081/.well-known/jwks.json"`
	// Demo seeds the demo data when true.
	Demo bool `env:"PAYGATE_DEMO" default:"false"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `env:"PAYGATE_LOG_LEVEL" default:"info" oneof:"debug,info,warn,error"`
	// TrustedProxyHops is how many right-most X-Forwarded-For entries are our
	// own proxies.
	TrustedProxyHops int `env:"PAYGATE_TRUSTED_PROXY_HOPS" default:"0"`
	// TracingEndpoint is the OTLP/HTTP collector spans go to, e.g.
	// http://otel-collector:4318; empty turns tracing off.
	TracingEndpoint string `env:"PAYGATE_OTLP_ENDPOINT"`
	// PprofAddr, when set, serves Go's runtime profiles (net/http/pprof) on
	// its own listener, e.g. 127.0.0.1:6060; keep it off public networks.
	PprofAddr string `env:"PAYGATE_PPROF_ADDR"`
	// AllowPrivateURLs lets merchant-supplied URLs (callback URLs,
	// validation endpoints) reach loopback, private and link-local
	// addresses. Only for local demos and tests; never in production.
	AllowPrivateURLs bool `env:"PAYGATE_ALLOW_PRIVATE_URLS" default:"false"`
	// InternalToken is the secret the deployment's services present to
	// each other's internal methods ("authorization: Internal <token>");
	// read it with Internal, which requires it outside demo mode.
	InternalToken string `env:"PAYGATE_INTERNAL_TOKEN"`
}

// Internal returns the internal token: InternalToken, or in demo mode
// without one the public DemoInternalToken. Outside demo mode it is required
// (at least 16 characters), so that internal methods are never open.
func (c Common) Internal() (string, error) {
	switch {
	case c.InternalToken == "" && c.Demo:
		return DemoInternalToken, nil
	case c.InternalToken == "":
		return "", errors.New(KeyInternalToken + " is required outside demo mode (a random secret shared by the services)")
	case len(c.InternalToken) < 16:
		return "", errors.New(KeyInternalToken + " is too short: use at least 16 random characters")
	}
	return c.InternalToken, nil
}

// SeparateReads reports whether DatabaseReadURL names a database other than
// DatabaseURL, so that the lag-tolerant reads get a pool of their own.
func (c Common) SeparateReads() bool {
	return c.DatabaseReadURL != "" && c.DatabaseReadURL != c.DatabaseURL
}

// Shared returns the shared settings of a service's configuration that
// embeds Common (the app runner reads them through it).
func (c *Common) Shared() *Common { return c }

// SlogLevel returns LogLevel as a slog level (info when unset).
func (c Common) SlogLevel() slog.Level {
	switch c.LogLevel {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

// Option changes how Load fills a struct.
type Option func(*options)

type options struct {
	defaults map[string]string
}

// Default sets the default of key, overriding the field's default tag. The
// environment still wins.
func Default(key, value string) Option {
	return func(o *options) { o.defaults[key] = value }
}

// Ports is shorthand for the per-service defaults of PAYGATE_HTTP_ADDR and
// PAYGATE_GRPC_ADDR.
func Ports(httpAddr, grpcAddr string) Option {
	return func(o *options) {
		o.defaults[KeyHTTPAddr] = httpAddr
		o.defaults[KeyGRPCAddr] = grpcAddr
	}
}

// Load fills the struct dst points to from getenv, using defaults for empty
// variables. It returns one error naming every key that is missing or cannot
// be parsed; dst is then partly filled and should not be used.
func Load(getenv func(string) string, dst any, opts ...Option) error {
	o := options{defaults: map[string]string{}}
	for _, opt := range opts {
		opt(&o)
	}
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("config: load into %T: want a non-nil pointer to a struct", dst)
	}
	var problems []string
	if err := fill(v.Elem(), getenv, o, &problems); err != nil {
		return err
	}
	if c, ok := dst.(Checker); ok {
		// A key that could not be parsed is reported once, by its parse
		// problem, not again by the check of its (unfilled) value.
		for _, p := range c.Check() {
			if !slices.ContainsFunc(problems, func(q string) bool { return sameKey(p, q) }) {
				problems = append(problems, p)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("config: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Checker is a configuration struct that judges its own values once Load has
// filled them (ranges, values that depend on each other). Load reports its
// problems together with the keys it could not parse, so that an operator
// sees every bad key in one error. Each problem starts with the key it is
// about.
type Checker interface {
	Check() []string
}

// sameKey reports whether two problems start with the same PAYGATE_ key.
func sameKey(a, b string) bool {
	key := func(s string) string {
		end := strings.IndexFunc(s, func(r rune) bool { return !(r == '_' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') })
		if end < 0 {
			return s
		}
		return s[:end]
	}
	ka := key(a)
	return strings.HasPrefix(ka, "PAYGATE_") && ka == key(b)
}

func fill(v reflect.Value, getenv func(string) string, o options, problems *[]string) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		fv := v.Field(i)
		key, tagged := f.Tag.Lookup("env")
		if !tagged {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				if err := fill(fv, getenv, o, problems); err != nil {
					return err
				}
			}
			continue
		}
		if !f.IsExported() {
			return fmt.Errorf("config: field %s has an env tag but is not exported", f.Name)
		}
		raw := strings.TrimSpace(getenv(key))
		if raw == "" {
			if d, ok := o.defaults[key]; ok {
				raw = d
			} else {
				raw = f.Tag.Get("default")
			}
		}
		if raw == "" {
			if f.Tag.Get("required") == "true" {
				*problems = append(*problems, key+" is required")
			}
			if fv.Kind() != reflect.Slice {
				fv.SetZero()
				continue
			}
		}
		if err := set(fv, raw); err != nil {
			if errors.Is(err, errUnsupported) {
				return fmt.Errorf("config: field %s (%s): %w", f.Name, key, err)
			}
			*problems = append(*problems, fmt.Sprintf("%s=%q: %v", key, raw, err))
			continue
		}
		if oneOf, ok := f.Tag.Lookup("oneof"); ok && raw != "" && !slices.Contains(strings.Split(oneOf, ","), raw) {
			*problems = append(*problems, fmt.Sprintf("%s=%q: want one of %s", key, raw, oneOf))
		}
	}
	return nil
}

var errUnsupported = errors.New("unsupported field type")

var durationType = reflect.TypeFor[time.Duration]()

func set(fv reflect.Value, raw string) error {
	switch {
	case fv.Type() == durationType:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return errors.New("not a duration (e.g. 30s, 5m, 24h)")
		}
		fv.SetInt(int64(d))
	case fv.Kind() == reflect.String:
		fv.SetString(raw)
	case fv.Kind() == reflect.Int, fv.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, fv.Type().Bits())
		if err != nil {
			return errors.New("not an integer")
		}
		fv.SetInt(n)
	case fv.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return errors.New("not a boolean (true or false)")
		}
		fv.SetBool(b)
	case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
		var items []string
		for item := range strings.SplitSeq(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		s := reflect.MakeSlice(fv.Type(), len(items), len(items))
		for i, item := range items {
			s.Index(i).SetString(item)
		}
		fv.Set(s)
	default:
		return fmt.Errorf("%w %s", errUnsupported, fv.Type())
	}
	return nil
}
