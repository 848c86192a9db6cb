-- The cash rollup: successful transactions (status 4) by local day in each
-- of the console's 25 whole-hour zones (utc_offset -12 … 12 hours), so that
-- a range starting at local midnight reads one row per local day × UTC day
-- × merchant × type × currency instead of every hour. utc_day is the
-- transaction's UTC day: it decides the rate its amount is converted at.
-- Every successful transaction is in it 25 times, once per offset.
CREATE TABLE stats_cash (
    utc_offset smallint NOT NULL CHECK (utc_offset BETWEEN -12 AND 12),
    local_day date NOT NULL,
    utc_day date NOT NULL,
    merchant_id integer NOT NULL,
    transaction_type smallint NOT NULL,
    currency text NOT NULL,
    n bigint NOT NULL,
    amount numeric NOT NULL,
    PRIMARY KEY (utc_offset, local_day, utc_day, merchant_id, transaction_type, currency)
);

-- Fill it from the states already applied, so that an existing schema
-- needs no rebuild.
INSERT INTO stats_cash (utc_offset, local_day, utc_day, merchant_id, transaction_type, currency, n, amount)
SELECT o, ((created_hour AT TIME ZONE 'UTC') + make_interval(hours => o))::date, (created_hour AT TIME ZONE 'UTC')::date,
    merchant_id, transaction_type, currency, count(*), sum(amount)
FROM tx_state CROSS JOIN generate_series(-12, 12) AS o
WHERE version > 0 AND status = 4
GROUP BY 1, 2, 3, 4, 5, 6;
