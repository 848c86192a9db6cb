package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/paygate/paygate/services/gateway/internal/exportfmt/pdftext"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// fileJSON is a File of docs/contracts-files.md.
type fileJSON struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Status        int            `json:"status"`
	FileType      int            `json:"fileType"`
	ExportType    int            `json:"exportType"`
	FileSizeBytes string         `json:"fileSizeBytes"`
	RecordCount   string         `json:"recordCount"`
	StatusMessage string         `json:"statusMessage"`
	ErrorMessage  string         `json:"errorMessage"`
	Filters       map[string]any `json:"filters"`
	CreatedBy     string         `json:"createdBy"`
	Manifest      *struct {
		RowCount string `json:"rowCount"`
		ByteSize string `json:"byteSize"`
		Sha256   string `json:"sha256"`
		Columns  []struct {
			Field, Name string
		} `json:"columns"`
	} `json:"manifest"`
}

// filesEnv is a gateway with export workers on a files directory of its
// own, a merchant with a collab and seeded transactions.
type filesEnv struct {
	*testGateway
	dir      string
	admin    *caller
	merchant int32
	collab   int32
}

func newFilesEnv(t *testing.T, env ...map[string]string) *filesEnv {
	t.Helper()
	dir := t.TempDir()
	g := newTestGateway(t, append([]map[string]string{{"PAYGATE_FILES_DIR": dir, "PAYGATE_FILES_LEASE": "3s"}}, env...)...)
	e := &filesEnv{testGateway: g, dir: dir, admin: g.user(t, access.RoleAdmin)}
	e.merchant = g.newMerchant(t)
	e.collab = g.initialize(t, e.admin, e.merchant, 1, 1)
	return e
}

// exportBody is an export request: the filter, and the settings with
// columns given in order.
func exportBody(filter map[string]any, exportType, fileType int, tz string, cols ...string) map[string]any {
	columns := map[string]string{}
	for _, c := range cols {
		field, name, _ := strings.Cut(c, "=")
		columns[field] = name
	}
	order := make([]string, 0, len(cols))
	for _, c := range cols {
		field, _, _ := strings.Cut(c, "=")
		order = append(order, field)
	}
	return map[string]any{"filter": filter, "settings": map[string]any{
		"exportType": exportType, "fileType": fileType, "columns": columns, "columnOrder": order, "timeZone": tz}}
}

func (e *filesEnv) export(t *testing.T, c *caller, collab int32, body map[string]any) string {
	t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	c.must(t, http.StatusOK, http.MethodPost, "/api/v1/files/export?collabId="+strconv.Itoa(int(collab)), body, &out)
	return out.ID
}

func (e *filesEnv) info(t *testing.T, c *caller, id string) fileJSON {
	t.Helper()
	var f fileJSON
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/files/"+id+"/info", nil, &f)
	return f
}

// waitFile waits until file id is final and returns it.
func (e *filesEnv) waitFile(t *testing.T, c *caller, id string) fileJSON {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		f := e.info(t, c, id)
		if f.Status != 0 && f.Status != 1 {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("file %s still %d (%s) after a minute", id, f.Status, f.StatusMessage)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// download fetches a file's bytes and checks its headers.
func (e *filesEnv) download(t *testing.T, c *caller, f fileJSON, contentType string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.HTTPURL+"/api/v1/files/"+f.ID, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download %s = %d: %s", f.ID, resp.StatusCode, buf.Bytes())
	}
	if got := resp.Header.Get("Content-Type"); got != contentType {
		t.Errorf("Content-Type %q, want %q", got, contentType)
	}
	if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename=`+f.Name; got != want {
		t.Errorf("Content-Disposition %q, want %q", got, want)
	}
	if resp.Header.Get("Content-Length") != strconv.Itoa(buf.Len()) {
		t.Errorf("Content-Length %q, body %d bytes", resp.Header.Get("Content-Length"), buf.Len())
	}
	return buf.Bytes()
}

// checkManifest checks that the file's info and the manifest beside it
// describe b.
func (e *filesEnv) checkManifest(t *testing.T, f fileJSON, b []byte, rows int) {
	t.Helper()
	sum := sha256.Sum256(b)
	want := hex.EncodeToString(sum[:])
	if f.Manifest == nil || f.Manifest.Sha256 != want || f.Manifest.RowCount != strconv.Itoa(rows) ||
		f.Manifest.ByteSize != strconv.Itoa(len(b)) || f.RecordCount != strconv.Itoa(rows) || f.FileSizeBytes != strconv.Itoa(len(b)) {
		t.Errorf("file %+v (manifest %+v): want %d rows, %d bytes, SHA-256 %s", f, f.Manifest, rows, len(b), want)
	}
	matches, _ := filepath.Glob(filepath.Join(e.dir, "exports", f.ID, "*", "manifest.json"))
	if len(matches) != 1 {
		t.Fatalf("manifests beside file %s: %v", f.ID, matches)
	}
	raw, err := os.ReadFile(matches[0])
	if err != nil || !strings.Contains(string(raw), `"sha256": "`+want+`"`) {
		t.Errorf("manifest %s: %s (%v)", matches[0], raw, err)
	}
}

// TestExportEqualsTheList exports a filtered list as CSV, Excel and PDF and
// finds the list's own rows in each: the same transactions in the same
// order, the same count and the same totals; times in the caller's zone; a
// formula in a merchant client id arrives quoted.
func TestExportEqualsTheList(t *testing.T) {
	t.Parallel()
	e := newFilesEnv(t)
	other := e.newMerchant(t)
	otherCollab := e.initialize(t, e.admin, other, 1, 1)
	const formula = "=cmd|' /C calc'!A0"
	for i := range 30 {
		s := seedTx{merchant: e.merchant, collab: e.collab, provider: 1, typ: 1 + i%2, status: []int{4, -2, 3}[i%3],
			amount: fmt.Sprintf("%d.%02d", 10+i*7, i*3%100), currency: []string{"PHP", "USD"}[i%2],
			at:   time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 90 * time.Minute).Format(time.RFC3339),
			mcid: "client-" + strconv.Itoa(i)}
		if i == 4 {
			s.mcid = formula
		}
		e.seed(t, s)
	}
	e.seed(t, seedTx{merchant: other, collab: otherCollab, provider: 1, typ: 1, status: 4, amount: "5.00", currency: "PHP",
		at: "2025-03-01T05:00:00Z"})

	m := e.user(t, access.RoleMerchant, e.merchant)
	query := "from=2025-03-01T00:00:00&to=2025-03-02T23:59:59.999&statuses=4,-2&take=100&includeTotalAmounts=true"
	list := m.list(t, e.collab, query)
	if list.TotalCount < 10 {
		t.Fatalf("the list holds %d rows", list.TotalCount)
	}
	filter := map[string]any{"from": "2025-03-01T00:00:00", "to": "2025-03-02T23:59:59.999", "statuses": []int{4, -2}}
	cols := []string{"id=Id", "amount=", "currency=", "merchantClientId=Client", "createdUtc=Created (Manila)"}
	manila, _ := time.LoadLocation("Asia/Manila")

	checkRows := func(t *testing.T, rows [][]string) {
		t.Helper()
		if !slices.Equal(rows[0], []string{"Id", "Amount", "Currency", "Client", "Created (Manila)"}) {
			t.Errorf("header %q", rows[0])
		}
		rows = rows[1:]
		if len(rows) != list.TotalCount {
			t.Fatalf("%d rows, the list %d", len(rows), list.TotalCount)
		}
		totals := map[string]*big.Rat{}
		for i, r := range rows {
			tx := list.Transactions[i]
			if r[0] != tx.ID || r[1] != tx.Amount || r[2] != tx.Currency {
				t.Errorf("row %d %q, the list's %+v", i, r, tx)
			}
			created, _ := time.Parse(time.RFC3339Nano, tx.CreatedUtc)
			if r[4] != created.In(manila).Format("2006-01-02 15:04:05") {
				t.Errorf("row %d created %q, want %s in Manila", i, r[4], created)
			}
			if totals[r[2]] == nil {
				totals[r[2]] = new(big.Rat)
			}
			v, ok := new(big.Rat).SetString(r[1])
			if !ok {
				t.Fatalf("amount %q", r[1])
			}
			totals[r[2]].Add(totals[r[2]], v)
		}
		for cur, sum := range list.TotalAmounts {
			if totals[cur] == nil || totals[cur].FloatString(2) != sum {
				t.Errorf("total %s: file %v, list %s", cur, totals[cur], sum)
			}
		}
	}

	t.Run("csv", func(t *testing.T) {
		id := e.export(t, m, e.collab, exportBody(filter, 1, 0, "Asia/Manila", cols...))
		f := e.waitFile(t, m, id)
		if f.Status != 2 || f.CreatedBy != m.name || !strings.HasSuffix(f.Name, ".csv") {
			t.Fatalf("file %+v", f)
		}
		b := e.download(t, m, f, "text/csv; charset=utf-8")
		e.checkManifest(t, f, b, list.TotalCount)
		// The CSV starts with a byte order mark, for Excel.
		rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, rows)
		var guarded bool
		for _, r := range rows {
			if strings.Contains(r[3], "cmd|") {
				guarded = r[3] == "'"+formula
			}
		}
		if slices.ContainsFunc(list.Transactions, func(x txJSON) bool { return x.MerchantClientID == formula }) && !guarded {
			t.Errorf("the formula client id is not guarded in %s", b)
		}
	})

	t.Run("transaction logs", func(t *testing.T) {
		// Two journal entries of the newest transaction, one of the next.
		for i, tx := range []string{list.Transactions[0].ID, list.Transactions[0].ID, list.Transactions[1].ID} {
			e.exec(t, `INSERT INTO transaction_logs (transaction_id, at, stage, level, message, content)
				VALUES ($1, now(), 'Polling', 'Information', $2, '{"k": "v"}')`, tx, "entry "+strconv.Itoa(i))
		}
		id := e.export(t, m, e.collab, exportBody(filter, 3, 0, "UTC", "transactionId=", "message=", "content="))
		f := e.waitFile(t, m, id)
		if f.Status != 2 {
			t.Fatalf("file %+v", f)
		}
		b := e.download(t, m, f, "text/csv; charset=utf-8")
		e.checkManifest(t, f, b, 3)
		rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := [][]string{{"Transaction ID", "Message", "Content"},
			{list.Transactions[0].ID, "entry 0", `{"k": "v"}`}, {list.Transactions[0].ID, "entry 1", `{"k": "v"}`},
			{list.Transactions[1].ID, "entry 2", `{"k": "v"}`}}
		if !slices.EqualFunc(rows, want, slices.Equal) {
			t.Errorf("rows %q, want %q", rows, want)
		}
	})

	t.Run("excel", func(t *testing.T) {
		id := e.export(t, m, e.collab, exportBody(filter, 1, 1, "Asia/Manila", cols...))
		f := e.waitFile(t, m, id)
		if f.Status != 2 {
			t.Fatalf("file %+v", f)
		}
		b := e.download(t, m, f, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
		e.checkManifest(t, f, b, list.TotalCount)
		x, err := excelize.OpenReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		rows, err := x.GetRows(x.GetSheetName(0))
		if err != nil {
			t.Fatal(err)
		}
		// Excel keeps amounts as numbers: read back with two decimals.
		for _, r := range rows[1:] {
			if v, ok := new(big.Rat).SetString(r[1]); ok {
				r[1] = v.FloatString(2)
			}
		}
		checkRows(t, rows)
	})

	t.Run("pdf", func(t *testing.T) {
		id := e.export(t, m, e.collab, exportBody(filter, 1, 2, "Asia/Manila", cols...))
		f := e.waitFile(t, m, id)
		if f.Status != 2 {
			t.Fatalf("file %+v", f)
		}
		b := e.download(t, m, f, "application/pdf")
		e.checkManifest(t, f, b, list.TotalCount)
		// The rows through the document's text: a title on the first page,
		// the header on every page, "Page N" at each foot.
		pages, err := pdftext.Pages(b)
		if err != nil || len(pages) < 1 {
			t.Fatalf("pdf: %v, %d pages", err, len(pages))
		}
		header := []string{"Id", "Amount", "Currency", "Client", "Created (Manila)"}
		rows := [][]string{header}
		for n, lines := range pages {
			if n == 0 && len(lines) > 0 && !slices.Equal(lines[0], header) {
				lines = lines[1:]
			}
			if len(lines) < 2 || !slices.Equal(lines[0], header) || !slices.Equal(lines[len(lines)-1], []string{"Page " + strconv.Itoa(n+1)}) {
				t.Fatalf("page %d reads %q", n+1, lines)
			}
			rows = append(rows, lines[1:len(lines)-1]...)
		}
		checkRows(t, rows)
	})
}

// TestExportRefusals: bad input is a 400 naming the field, another
// merchant's collab a 404, no Files Access a 403, and none of them schedules
// anything; another merchant's file is 404 on every call.
func TestExportRefusals(t *testing.T) {
	t.Parallel()
	e := newFilesEnv(t, map[string]string{"PAYGATE_FILES_WORKERS": "0"})
	other := e.newMerchant(t)
	otherCollab := e.initialize(t, e.admin, other, 1, 1)
	m := e.user(t, access.RoleMerchant, e.merchant)
	ok := exportBody(map[string]any{}, 1, 0, "UTC", "id=")
	cases := []struct {
		name   string
		collab int32
		body   map[string]any
		status int
		want   string
	}{
		{"unknown type", e.collab, exportBody(nil, 9, 0, "", "id="), 400, "settings.exportType"},
		{"unknown file type", e.collab, exportBody(nil, 1, 7, "", "id="), 400, "settings.fileType"},
		{"unknown column", e.collab, exportBody(nil, 1, 0, "", "id=", "secret="), 400, `settings.columns: "secret"`},
		{"no column", e.collab, exportBody(nil, 1, 0, ""), 400, "settings.columns must name at least one column."},
		{"bad time zone", e.collab, exportBody(nil, 1, 0, "Mars/Olympus", "id="), 400, "settings.timeZone"},
		{"bad filter", e.collab, exportBody(map[string]any{"minAmount": "5", "maxAmount": "1"}, 1, 0, "", "id="), 400, "minAmount must not be more than maxAmount"},
		{"bad status", e.collab, exportBody(map[string]any{"statuses": []int{99}}, 1, 0, "", "id="), 400, "statuses"},
		{"another merchant's collab", otherCollab, ok, 404, "was not found"},
		{"an unknown collab", 999999, ok, 404, "was not found"},
	}
	for _, tc := range cases {
		var body struct{ Code, Message string }
		m.must(t, tc.status, http.MethodPost, "/api/v1/files/export?collabId="+strconv.Itoa(int(tc.collab)), tc.body, &body)
		if !strings.Contains(body.Message, tc.want) {
			t.Errorf("%s: %q, want it to contain %q", tc.name, body.Message, tc.want)
		}
	}
	noFiles := e.user(t, access.RoleMerchantSupport, e.merchant)
	noFiles.must(t, http.StatusForbidden, http.MethodPost, "/api/v1/files/export?collabId="+strconv.Itoa(int(e.collab)), ok, nil)
	noFiles.must(t, http.StatusForbidden, http.MethodGet, "/api/v1/files", nil, nil)
	if n := e.queryInt(t, `SELECT count(*) FROM files`); n != 0 {
		t.Fatalf("%d files scheduled by refused requests", n)
	}
	if n := e.queryInt(t, `SELECT count(*) FROM outbox WHERE subject = 'paygate.events.file_export_requested'`); n != 0 {
		t.Fatalf("%d export requests sent by refused requests", n)
	}

	// A file of merchant A is not B's to see, fetch or delete.
	id := e.export(t, m, e.collab, ok)
	b := e.user(t, access.RoleMerchant, other)
	for _, call := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/files/" + id + "/info"},
		{http.MethodGet, "/api/v1/files/" + id},
		{http.MethodDelete, "/api/v1/files/" + id},
	} {
		b.must(t, http.StatusNotFound, call.method, call.path, nil, nil)
	}
	var page struct {
		Files      []fileJSON `json:"files"`
		TotalCount string     `json:"totalCount"`
	}
	b.must(t, http.StatusOK, http.MethodGet, "/api/v1/files", nil, &page)
	if len(page.Files) != 0 {
		t.Errorf("merchant B lists %+v", page.Files)
	}
	m.must(t, http.StatusOK, http.MethodGet, "/api/v1/files?page=1&take=10", nil, &page)
	if len(page.Files) != 1 || page.Files[0].ID != id || page.TotalCount != "1" {
		t.Errorf("merchant A lists %+v", page)
	}
	e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/files/"+id+"/info", nil, nil)
	m.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/files?take=101", nil, nil)

	// Not written yet: a download is 409 "not ready"; deleting cancels it.
	var e409 struct{ Code, Message string }
	m.must(t, http.StatusConflict, http.MethodGet, "/api/v1/files/"+id, nil, &e409)
	if !strings.Contains(e409.Message, "not ready") {
		t.Errorf("409 message %q", e409.Message)
	}
	var deleted struct {
		File fileJSON `json:"file"`
	}
	m.must(t, http.StatusOK, http.MethodDelete, "/api/v1/files/"+id, nil, &deleted)
	if deleted.File.Status != -2 {
		t.Fatalf("deleted a Scheduled file: %+v", deleted.File)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "exports", id)); !os.IsNotExist(err) {
		t.Errorf("a cancelled file has bytes: %v", err)
	}
	if n := e.queryInt(t, `SELECT count(*) FROM activity_log WHERE user_id = $1 AND action_type = 'Other'`, m.id); n != 2 {
		t.Errorf("%d activity entries for the request and the cancel, want 2", n)
	}
}

// TestRetentionDeletesOldFiles: a file older than 3 days loses its bytes
// and is listed as Deleted.
func TestRetentionDeletesOldFiles(t *testing.T) {
	t.Parallel()
	e := newFilesEnv(t, map[string]string{"PAYGATE_FILES_RETENTION_INTERVAL": "200ms"})
	e.seed(t, seedTx{merchant: e.merchant, collab: e.collab, provider: 1, typ: 1, status: 4, amount: "1.00", currency: "PHP",
		at: "2025-03-01T00:00:00Z"})
	old := e.export(t, e.admin, e.collab, exportBody(nil, 1, 0, "UTC", "id="))
	fresh := e.export(t, e.admin, e.collab, exportBody(nil, 1, 0, "UTC", "id="))
	for _, id := range []string{old, fresh} {
		if f := e.waitFile(t, e.admin, id); f.Status != 2 {
			t.Fatalf("file %+v", f)
		}
	}
	e.exec(t, `UPDATE files SET created_at = now() - interval '73 hours' WHERE id = $1`, old)
	deadline := time.Now().Add(20 * time.Second)
	for e.info(t, e.admin, old).Status != -3 {
		if time.Now().After(deadline) {
			t.Fatal("the old file was not deleted")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "exports", old)); !os.IsNotExist(err) {
		t.Errorf("the old file's bytes are still there: %v", err)
	}
	if f := e.info(t, e.admin, fresh); f.Status != 2 {
		t.Errorf("the fresh file: %+v", f)
	}
	matches, _ := filepath.Glob(filepath.Join(e.dir, "exports", fresh, "*", "*.csv"))
	if len(matches) != 1 {
		t.Errorf("the fresh file's bytes: %v", matches)
	}
	var e409 struct{ Code, Message string }
	e.admin.must(t, http.StatusConflict, http.MethodGet, "/api/v1/files/"+old, nil, &e409)
	if !strings.Contains(e409.Message, "not ready") {
		t.Errorf("download of a deleted file: %q", e409.Message)
	}
}

// TestExportWorkerKilledMidFile kills (SIGKILL) the gateway binary while
// its worker writes a file, then starts another gateway on the same schema
// and files directory: the file is never Success with part of its rows; the
// second worker claims it once the first one's lease lapsed and writes it
// again from the start, with every row and the SHA-256 of its bytes.
func TestExportWorkerKilledMidFile(t *testing.T) {
	t.Parallel()
	const n = 3000
	bin, err := servicetest.Build("github.com/paygate/paygate/services/gateway")
	if err != nil {
		t.Fatal(err)
	}
	issuer := authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, issuer)
	schema := "gateway_test_" + randomHex(t, 6)
	dir := t.TempDir()
	t.Cleanup(func() { dropSchema(t, schema) })
	t.Cleanup(func() {
		servicetest.DeleteConsumers(testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222"), gwnats.ExportConsumer(schema))
	})
	env := map[string]string{
		"PAYGATE_DATABASE_URL": pgtest.URL(), "PAYGATE_DATABASE_SCHEMA": schema,
		"PAYGATE_REDIS_URL": testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"),
		"PAYGATE_NATS_URL":  testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222"),
		"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_GRPC_ADDR": "127.0.0.1:0", "PAYGATE_JWKS_URL": jwks.URL,
		"PAYGATE_DEMO": "true", "PAYGATE_CONSUME_CALLBACK_EVENTS": "false",
		"PAYGATE_FILES_DIR": dir, "PAYGATE_FILES_LEASE": "3s", "PAYGATE_FILES_ROWS_PER_SECOND": "600",
	}
	first, err := servicetest.Start(bin, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(first.Kill)
	pool, err := pgdb.Open(t.Context(), pgtest.URL(), schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	g := &testGateway{gatewayRun: &gatewayRun{Service: first, schema: schema}, issuer: issuer, pool: pool,
		client: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
	admin := &caller{g: g, name: "admin-kill", ua: "gateway-test/kill",
		token: issuer.Token(t, authztest.User{ID: userSeq.Add(1), Username: "admin-kill", Roles: []string{access.RoleAdmin}, Permissions: grants[access.RoleAdmin]})}
	e := &filesEnv{testGateway: g, dir: dir, admin: admin}
	e.merchant = 1 // a demo merchant
	e.collab = int32(e.queryInt(t, `SELECT id FROM collabs WHERE merchant_id = 1 ORDER BY id LIMIT 1`))
	e.exec(t, `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
			destination_amount, destination_currency, created_at, updated_at)
		SELECT 'KILL-' || i, 1, $1, c.provider_id, 1, 'Acme Games', 'Seed provider', 'GCash', 'kill-' || i, 'client-' || i,
			1, 4, (i * 1.25)::numeric, 'PHP', (i * 1.25)::numeric, 'PHP',
			timestamptz '2025-04-01 00:00:00Z' + i * interval '1 second', timestamptz '2025-04-01 00:00:00Z' + i * interval '1 second'
		FROM generate_series(1, $2) AS i, collabs c WHERE c.id = $1`, e.collab, n)

	id := e.export(t, admin, e.collab, exportBody(map[string]any{"from": "2025-04-01", "to": "2025-04-02"}, 1, 0, "UTC",
		"id=", "transactionReferenceId=", "amount="))
	deadline := time.Now().Add(30 * time.Second)
	for e.queryInt(t, `SELECT count(*) FROM files WHERE id = $1 AND status = 1 AND status_message LIKE 'Writing: % rows so far.'
		AND status_message <> 'Writing: 0 rows so far.'`, id) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the first worker did not start writing:\n%s", first.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Kill()
	if s := e.queryInt(t, `SELECT status FROM files WHERE id = $1`, id); s != 1 {
		t.Fatalf("after the kill the file is %d, want 1 (In Progress)", s)
	}
	if committed, _ := filepath.Glob(filepath.Join(dir, "exports", id, "*", "*.csv")); len(committed) != 0 {
		t.Fatalf("the killed worker left committed files %v", committed)
	}

	second := startGatewayIn(t, schema, jwks.URL, map[string]string{"PAYGATE_FILES_DIR": dir, "PAYGATE_FILES_LEASE": "3s"})
	g.gatewayRun = second
	f := e.waitFile(t, admin, id)
	if f.Status != 2 {
		t.Fatalf("file %+v", f)
	}
	if a := e.queryInt(t, `SELECT attempt FROM files WHERE id = $1`, id); a != 2 {
		t.Errorf("attempt %d, want 2", a)
	}
	b := e.download(t, admin, f, "text/csv; charset=utf-8")
	e.checkManifest(t, f, b, n)
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+1 || rows[1][1] != "KILL-"+strconv.Itoa(n) || rows[n][1] != "KILL-1" {
		t.Fatalf("%d rows; first %q, last %q", len(rows), rows[1], rows[len(rows)-1])
	}
	if committed, _ := filepath.Glob(filepath.Join(dir, "exports", id, "*", "*.csv")); len(committed) != 1 ||
		!strings.Contains(committed[0], filepath.Join("exports", id, "2")) {
		t.Errorf("committed files %v, want the second attempt's only", committed)
	}
}
