package main

import (
	"strings"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/keyring"
)

// Config is the gateway's configuration: the shared keys, with the
// gateway's ports as defaults, and its schema.
type Config struct {
	config.Common
	// Schema is the Postgres schema the service owns (tests use their own).
	Schema string `env:"PAYGATE_DATABASE_SCHEMA"`
	// EncryptionKey is the base64 AES-256 key that seals merchants' API
	// secrets and providers' webhook secrets under the key id "default" when
	// EncryptionKeys is empty; one of them is required unless demo mode,
	// which falls back to a public demo key.
	EncryptionKey string `env:"PAYGATE_ENCRYPTION_KEY"`
	// EncryptionKeys is the keyring of those secrets, "id:base64key,…": the
	// first key seals, the others still open what they sealed, and the job
	// gateway.secrets-reseal moves values to the first (docs/operations.md,
	// "Rotate keys"). When set, EncryptionKey is not read.
	EncryptionKeys string `env:"PAYGATE_ENCRYPTION_KEYS"`
	// SandboxURL is where demo seeding points the demo providers.
	SandboxURL string `env:"PAYGATE_SANDBOX_URL" default:"http://127.0.0.1:8085"`
	// CallbacksGRPCAddr is the callbacks service's gRPC address: the
	// gateway host forwards the callback-URL and attempts calls there.
	CallbacksGRPCAddr string `env:"PAYGATE_CALLBACKS_GRPC_ADDR" default:"127.0.0.1:9083"`
	// ConsumeCallbackEvents runs the consumers of the callbacks service's
	// events (delivery tallies, callback-URL changes for the activity log).
	ConsumeCallbackEvents bool `env:"PAYGATE_CONSUME_CALLBACK_EVENTS" default:"true"`
	// CallbackEventsFrom is where those consumers start when they are made:
	// all (the stream's every event), new, or an RFC 3339 time.
	CallbackEventsFrom string `env:"PAYGATE_GATEWAY_CALLBACK_EVENTS_FROM" default:"all"`
	// TotalsFoldInterval is how often the transaction list's count/totals
	// deltas are folded into their rollups; 0 turns folding off (the list
	// stays exact, reading the deltas).
	TotalsFoldInterval time.Duration `env:"PAYGATE_TOTALS_FOLD_INTERVAL" default:"1s"`
	// PartitionMonthsAhead is how many months ahead of the current one the
	// job gateway.transaction-partitions keeps the transactions' monthly
	// partitions created (docs/partitioning.md).
	PartitionMonthsAhead int `env:"PAYGATE_PARTITION_MONTHS_AHEAD" default:"3"`
	// PollInterval is the first delay before polling a pending transaction
	// (doubling per attempt) and the poller's tick.
	PollInterval time.Duration `env:"PAYGATE_POLL_INTERVAL" default:"2s"`
	// RecoverAfter is how long a transaction may stay Not Confirmed before
	// the recovery sweep resolves it (a crash stranded it); keep it above
	// ProviderTimeout.
	RecoverAfter time.Duration `env:"PAYGATE_RECOVERY_AFTER" default:"30s"`
	// ProviderTimeout bounds one call to a provider.
	ProviderTimeout time.Duration `env:"PAYGATE_PROVIDER_TIMEOUT" default:"10s"`
	// StreamHeartbeat is the interval of the transaction stream's keep-alive
	// comments.
	StreamHeartbeat time.Duration `env:"PAYGATE_STREAM_HEARTBEAT" default:"15s"`
	// ValidationTimeout bounds one call to a merchant's validation
	// endpoint; keep it below RecoverAfter.
	ValidationTimeout time.Duration `env:"PAYGATE_VALIDATION_TIMEOUT" default:"5s"`
	// AggregatorGRPCAddr is the aggregator's gRPC address: the gateway host
	// forwards the statistics and job calls there.
	AggregatorGRPCAddr string `env:"PAYGATE_AGGREGATOR_GRPC_ADDR" default:"127.0.0.1:9084"`
	// AuthGRPCAddr is the auth service's gRPC address: the gateway host
	// forwards the user, session and allowed-IP calls there.
	AuthGRPCAddr string `env:"PAYGATE_AUTH_GRPC_URL" default:"127.0.0.1:9081"`
	// FilesDir is the directory export files are kept in
	// (docs/contracts-files.md).
	FilesDir string `env:"PAYGATE_FILES_DIR" default:".data/files"`
	// FilesS3Endpoint selects an S3-compatible bucket for the export files
	// instead of FilesDir (host[:port], or an http(s) URL); the other
	// PAYGATE_FILES_S3_* keys configure it (docs/contracts-files.md).
	FilesS3Endpoint string `env:"PAYGATE_FILES_S3_ENDPOINT"`
	// FilesS3Bucket is the bucket that holds the files.
	FilesS3Bucket string `env:"PAYGATE_FILES_S3_BUCKET" default:"paygate-files"`
	// FilesS3Region is the bucket's region (empty: asked of the server).
	FilesS3Region string `env:"PAYGATE_FILES_S3_REGION"`
	// FilesS3AccessKey and FilesS3SecretKey are the static credentials.
	FilesS3AccessKey string `env:"PAYGATE_FILES_S3_ACCESS_KEY"`
	FilesS3SecretKey string `env:"PAYGATE_FILES_S3_SECRET_KEY"`
	// FilesS3UseSSL selects https.
	FilesS3UseSSL bool `env:"PAYGATE_FILES_S3_USE_SSL" default:"true"`
	// FilesS3Insecure skips TLS certificate checks (a development endpoint
	// with a self-signed certificate only).
	FilesS3Insecure bool `env:"PAYGATE_FILES_S3_INSECURE"`
	// FilesS3Prefix is put before every key, so deployments can share a
	// bucket.
	FilesS3Prefix string `env:"PAYGATE_FILES_S3_PREFIX"`
	// FilesS3CreateBucket makes the bucket at start when it is missing.
	FilesS3CreateBucket bool `env:"PAYGATE_FILES_S3_CREATE_BUCKET"`
	// FilesWorkers is how many export files this process writes at once;
	// 0 runs no export worker here (another replica writes them).
	FilesWorkers int `env:"PAYGATE_FILES_WORKERS" default:"1"`
	// FilesLease is how long an export worker's claim on a file lasts
	// unless renewed (every third of it): a worker that died leaves its file
	// to another after about this long.
	FilesLease time.Duration `env:"PAYGATE_FILES_LEASE" default:"30s"`
	// FilesRowsPerSecond throttles each export worker (0: no limit), to
	// spare a busy database.
	FilesRowsPerSecond int `env:"PAYGATE_FILES_ROWS_PER_SECOND" default:"0"`
	// FilesRetention is how long export files are kept (spec 02 §4: 3 days).
	FilesRetention time.Duration `env:"PAYGATE_FILES_RETENTION" default:"72h"`
	// BulkRescueAfter is when a bulk run's job whose worker died is taken
	// back by river's leader (docs/contracts-bulk.md).
	BulkRescueAfter time.Duration `env:"PAYGATE_BULK_RESCUE_AFTER" default:"1m"`
	// BulkWorkers is how many bulk runs this replica works at once (0: it
	// serves the calls and works none).
	BulkWorkers int `env:"PAYGATE_BULK_WORKERS" default:"2"`
	// BulkSlice is how long a bulk run's job works before it comes back to
	// the queue (jobs stay short, so a dead worker's run is rescued soon).
	BulkSlice time.Duration `env:"PAYGATE_BULK_SLICE" default:"20s"`
	// FilesRetentionInterval is how often the retention job looks.
	FilesRetentionInterval time.Duration `env:"PAYGATE_FILES_RETENTION_INTERVAL" default:"1h"`
	// FraudInterval is how often the fraud-detection job scans the new
	// transactions (docs/contracts-frauds.md).
	FraudInterval time.Duration `env:"PAYGATE_FRAUD_INTERVAL" default:"1m"`
	// FraudSettle is how long a new transaction is left to commit before
	// the fraud-detection job reads past its creation time.
	FraudSettle time.Duration `env:"PAYGATE_FRAUD_SETTLE" default:"5s"`
	// FraudThresholds overrides the detection thresholds: a JSON object
	// with the fields of the FraudDetection setting; absent fields keep
	// their defaults.
	FraudThresholds string `env:"PAYGATE_FRAUD_THRESHOLDS"`
	// CredentialsKeys is the keyring sealing providers' credentials,
	// "id:base64key,…", the first key current (docs/contracts-credentials.md);
	// empty: the keyring of PAYGATE_ENCRYPTION_KEYS (by default
	// PAYGATE_ENCRYPTION_KEY, or the demo key, under id "default").
	CredentialsKeys string `env:"PAYGATE_CREDENTIALS_KEYS"`
	// BalanceCacheTTL is how long a provider's balance answer is cached per
	// collab (docs/contracts-balances.md).
	BalanceCacheTTL time.Duration `env:"PAYGATE_BALANCE_CACHE_TTL" default:"15s"`
}

// Check reports every bad value of the gateway's own keys at once (config.Load
// reports them with the keys it cannot parse).
func (c Config) Check() []string {
	var bad []string
	if _, err := bus.ParseStart(c.CallbackEventsFrom); err != nil {
		bad = append(bad, "PAYGATE_GATEWAY_CALLBACK_EVENTS_FROM: "+err.Error())
	}
	if c.FilesWorkers < 0 {
		bad = append(bad, "PAYGATE_FILES_WORKERS must be 0 or more")
	}
	if c.FilesLease < 3*time.Second {
		bad = append(bad, "PAYGATE_FILES_LEASE must be at least 3s")
	}
	if c.FilesRowsPerSecond < 0 {
		bad = append(bad, "PAYGATE_FILES_ROWS_PER_SECOND must be 0 or more")
	}
	if c.FilesRetention <= 0 || c.FilesRetentionInterval <= 0 {
		bad = append(bad, "PAYGATE_FILES_RETENTION and PAYGATE_FILES_RETENTION_INTERVAL must be positive")
	}
	if c.PartitionMonthsAhead < 1 || c.PartitionMonthsAhead > 24 {
		bad = append(bad, "PAYGATE_PARTITION_MONTHS_AHEAD must be between 1 and 24")
	}
	if c.FraudInterval <= 0 || c.FraudSettle < 0 {
		bad = append(bad, "PAYGATE_FRAUD_INTERVAL must be positive and PAYGATE_FRAUD_SETTLE 0 or more")
	}
	if _, err := fraud.ParseThresholds(c.FraudThresholds); err != nil {
		bad = append(bad, "PAYGATE_FRAUD_THRESHOLDS: "+err.Error())
	}
	if strings.TrimSpace(c.FilesDir) == "" && c.FilesS3Endpoint == "" {
		bad = append(bad, "PAYGATE_FILES_DIR must name a directory (or set PAYGATE_FILES_S3_ENDPOINT)")
	}
	if c.FilesS3Endpoint != "" && strings.TrimSpace(c.FilesS3Bucket) == "" {
		bad = append(bad, "PAYGATE_FILES_S3_BUCKET must name a bucket when PAYGATE_FILES_S3_ENDPOINT is set")
	}
	return bad
}

// box returns the keyring of the gateway's secrets: PAYGATE_ENCRYPTION_KEYS,
// or PAYGATE_ENCRYPTION_KEY under the id "default" (the demo key in demo
// mode when neither is set).
func (c Config) box() (*keyring.Keyring, error) {
	return keyring.FromConfig("PAYGATE_ENCRYPTION_KEYS", c.EncryptionKeys, "PAYGATE_ENCRYPTION_KEY", c.EncryptionKey, c.Demo)
}
