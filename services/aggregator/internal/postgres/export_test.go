package postgres

// CashQuery and CountQuery expose the statistics' queries to the package's
// tests (EXPLAIN).
var (
	CashQuery  = cashQuery
	CountQuery = countQuery
)
