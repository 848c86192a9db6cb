package postgres

// CashQuery exposes the cash query to the package's tests (EXPLAIN).
var CashQuery = cashQuery
