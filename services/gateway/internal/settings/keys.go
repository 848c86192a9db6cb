package settings

import (
	"math"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/fraud"
)

// The keys of the registry. Other packages rely on these names.
const (
	// KeyFraudDetection tunes the fraud rules (FraudDetection).
	KeyFraudDetection = "FraudDetection"
	// KeyExportRetentionHours is how long export files are kept.
	KeyExportRetentionHours = "ExportRetentionHours"
	// KeyPollingIntervalSeconds is the tick of the provider polling and
	// recovery loops.
	KeyPollingIntervalSeconds = "PollingIntervalSeconds"
	// KeyBalanceCacheSeconds is how long a provider balance is cached.
	KeyBalanceCacheSeconds = "BalanceCacheSeconds"
	// KeyBulkActionCap is the most transactions one bulk run may select.
	KeyBulkActionCap = "BulkActionCap"
	// KeyBulkActionRate is how many transactions a bulk run treats per
	// second.
	KeyBulkActionRate = "BulkActionRate"
)

// The defaults of the bulk actions' keys (docs/contracts-bulk.md).
const (
	DefaultBulkActionCap  = 100000
	DefaultBulkActionRate = 2000
)

// FraudDetection is the value of KeyFraudDetection: the thresholds of the
// fraud rules, as the fraud-detection job reads them.
type FraudDetection = fraud.Thresholds

// DefaultFraudDetection is FraudDetection's default: the fraud rules' own.
var DefaultFraudDetection = fraud.DefaultThresholds()

// Defaults are the defaults of the keys that come from the configuration.
type Defaults struct {
	// PollInterval is PollingIntervalSeconds' default (PAYGATE_POLL_INTERVAL).
	PollInterval time.Duration
	// ExportRetention is ExportRetentionHours' default
	// (PAYGATE_FILES_RETENTION).
	ExportRetention time.Duration
	// FraudDetection is FraudDetection's default (PAYGATE_FRAUD_THRESHOLDS
	// over the fraud package's defaults); DefaultFraudDetection when nil.
	FraudDetection *FraudDetection
	// BalanceCache is BalanceCacheSeconds' default
	// (PAYGATE_BALANCE_CACHE_TTL); 15 s when zero.
	BalanceCache time.Duration
}

// Key is one setting of the registry.
type Key struct {
	// Name is the key, e.g. "FraudDetection".
	Name string
	// Description says what it tunes.
	Description string
	// Schema says what values it takes.
	Schema Schema
	// Default is the value in force while none is stored: a value that
	// marshals to JSON.
	Default any
}

// Registry returns the keys of the gateway, by name, with the configured
// defaults. A default from the configuration is not held to the key's
// schema (a test may poll every 100ms); a value set through the API is.
func Registry(d Defaults) []Key {
	retentionHours := math.Ceil(d.ExportRetention.Hours())
	balanceSeconds := 15.0
	if d.BalanceCache > 0 {
		balanceSeconds = math.Ceil(d.BalanceCache.Seconds())
	}
	fraudDefault := DefaultFraudDetection
	if d.FraudDetection != nil {
		fraudDefault = *d.FraudDetection
	}
	return []Key{
		{
			Name: KeyBalanceCacheSeconds,
			Description: "How long, in seconds, a provider balance read from the provider is reused before it is asked again " +
				"(0 asks every time).",
			Schema:  Integer(0, 3600),
			Default: balanceSeconds,
		},
		{
			Name:        KeyBulkActionCap,
			Description: "The most transactions one bulk action (requeue polling, resend or cancel callbacks, mark failed) may select.",
			Schema:      Integer(1, 10000000),
			Default:     float64(DefaultBulkActionCap),
		},
		{
			Name:        KeyBulkActionRate,
			Description: "How many transactions per second a bulk action treats, at most. Read by every batch of a run.",
			Schema:      Integer(1, 100000),
			Default:     float64(DefaultBulkActionRate),
		},
		{
			Name: KeyExportRetentionHours,
			Description: "How long, in hours, export files are kept before the files-retention job deletes their bytes " +
				"(they stay listed as Deleted). Read on every run of the job; the default is PAYGATE_FILES_RETENTION.",
			Schema:  Integer(1, 720),
			Default: retentionHours,
		},
		{
			Name:        KeyFraudDetection,
			Description: "Thresholds of the fraud rules: payment velocity, amount spikes, failures before a success and identities shared between clients.",
			Schema: Object(
				Field{Name: "velocityMaxPayments", Description: "Payments of one client within the velocity window that raise a fraud.",
					Schema: Schema{Type: TypeInteger, Min: Bound(2)}},
				Field{Name: "velocityWindowMinutes", Description: "The velocity rule's window, in minutes.", Schema: Integer(1, 1440)},
				Field{Name: "amountSpikeFactor", Description: "How many times the client's average amount a payment must reach to be a spike.",
					Schema: Number(1.5, 1000)},
				Field{Name: "amountSpikeMinHistory", Description: "Earlier payments a client needs before the spike rule applies.",
					Schema: Integer(1, 1000)},
				Field{Name: "failuresBeforeSuccess", Description: "Failed payments before a success, within the failures window, that raise a fraud.",
					Schema: Integer(1, 100)},
				Field{Name: "failuresWindowMinutes", Description: "The failures rule's window, in minutes.", Schema: Integer(1, 1440)},
				Field{Name: "sharedIdentityMinClients", Description: "Clients sharing one payment identity, within its window, that raise a fraud.",
					Schema: Integer(2, 1000)},
				Field{Name: "sharedIdentityWindowMinutes", Description: "The shared-identity rule's window, in minutes.",
					Schema: Integer(1, 1440)},
			),
			Default: fraudDefault,
		},
		{
			Name: KeyPollingIntervalSeconds,
			Description: "How often, in seconds, the provider-polling and recovery jobs look for transactions due. " +
				"Read on every tick; the default is PAYGATE_POLL_INTERVAL.",
			Schema:  Number(0.5, 300),
			Default: d.PollInterval.Seconds(),
		},
	}
}
