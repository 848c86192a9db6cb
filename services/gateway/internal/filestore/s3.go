package filestore

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// defaultPartSize is the multipart part size when S3Config.PartSize is 0.
// minio-go holds one part in memory per upload; left to itself with an
// unknown length it would pick parts of about 537 MiB. 16 MiB parts allow
// objects up to 160 GB (10,000 parts).
const defaultPartSize = 16 << 20

// minPartSize is S3's smallest part but the last.
const minPartSize = 5 << 20

// S3Config configures an S3-compatible store. Each field is read by the
// service's Config from the environment variable named beside it.
type S3Config struct {
	// Endpoint is host[:port] (PAYGATE_FILES_S3_ENDPOINT). A URL with an
	// http or https scheme is accepted too, and then sets UseSSL.
	Endpoint string
	// Bucket holds the files (PAYGATE_FILES_S3_BUCKET).
	Bucket string
	// Region of the bucket (PAYGATE_FILES_S3_REGION); empty lets the client
	// ask the server.
	Region string
	// AccessKey and SecretKey are the static credentials
	// (PAYGATE_FILES_S3_ACCESS_KEY, PAYGATE_FILES_S3_SECRET_KEY).
	AccessKey string
	SecretKey string
	// UseSSL selects https (PAYGATE_FILES_S3_USE_SSL).
	UseSSL bool
	// Insecure skips TLS certificate verification, for a development
	// endpoint with a self-signed certificate (PAYGATE_FILES_S3_INSECURE).
	Insecure bool
	// Prefix is put before every key, so several deployments can share a
	// bucket (PAYGATE_FILES_S3_PREFIX): "paygate" or "paygate/" stores
	// "exports/1/f.csv" as "paygate/exports/1/f.csv".
	Prefix string
	// CreateBucket makes the bucket when it does not exist
	// (PAYGATE_FILES_S3_CREATE_BUCKET); otherwise a missing bucket is an
	// error at start.
	CreateBucket bool
	// PartSize is the multipart part size in bytes, at least 5 MiB; 0 means
	// 16 MiB. Each upload in flight holds one part in memory.
	PartSize uint64
	// Transport replaces the HTTP transport (tests); nil uses minio-go's.
	Transport http.RoundTripper
}

// S3 keeps files as objects in a bucket. Create streams the file as a
// multipart upload, which the server makes visible only when it completes;
// an aborted or failed upload is abandoned and leaves no object.
type S3 struct {
	client   *minio.Client
	bucket   string
	prefix   string
	partSize uint64
}

var _ Store = (*S3)(nil)

// NewS3 connects to the endpoint and checks that the bucket exists,
// creating it when cfg.CreateBucket says so.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if cfg.Endpoint == "" || cfg.Bucket == "" {
		return nil, errors.New("filestore: s3 store needs an endpoint and a bucket")
	}
	host, secure := cfg.Endpoint, cfg.UseSSL
	if strings.Contains(host, "://") {
		u, err := url.Parse(host)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("filestore: s3 endpoint %q is neither host[:port] nor an http(s) URL", cfg.Endpoint)
		}
		host, secure = u.Host, u.Scheme == "https"
	}
	partSize := cfg.PartSize
	switch {
	case partSize == 0:
		partSize = defaultPartSize
	case partSize < minPartSize:
		return nil, fmt.Errorf("filestore: s3 part size %d is below S3's 5 MiB", partSize)
	}
	transport := cfg.Transport
	if transport == nil && cfg.Insecure && secure {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} // asked for by configuration, for development endpoints
		transport = t
	}
	client, err := minio.New(host, &minio.Options{
		Creds:     credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:    secure,
		Region:    cfg.Region,
		Transport: transport,
	})
	if err != nil {
		return nil, fmt.Errorf("filestore: s3 client for %s: %w", host, err)
	}
	exists, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("filestore: check bucket %s: %w", cfg.Bucket, err)
	}
	if !exists {
		if !cfg.CreateBucket {
			return nil, fmt.Errorf("filestore: bucket %s does not exist", cfg.Bucket)
		}
		if err := client.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			return nil, fmt.Errorf("filestore: create bucket %s: %w", cfg.Bucket, err)
		}
	}
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &S3{client: client, bucket: cfg.Bucket, prefix: prefix, partSize: partSize}, nil
}

// Create returns a writer whose upload starts with the first byte written
// and lives as long as ctx; the object appears only when Commit completes
// it. Bad keys wrap ErrBadKey.
func (s *S3) Create(ctx context.Context, key string) (Writer, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &s3Writer{store: s, ctx: ctx, key: key}, nil
}

func (s *S3) putOptions(key string) minio.PutObjectOptions {
	return minio.PutObjectOptions{PartSize: s.partSize, ContentType: contentType(key)}
}

// uploadFailed is what a Write sees once the upload has ended.
func uploadFailed(err error) error {
	if err == nil {
		return errors.New("upload already finished")
	}
	return fmt.Errorf("upload failed: %w", err)
}

// errAborted ends the pipe of an aborted upload.
var errAborted = errors.New("filestore: upload aborted")

// Open reads an object; a missing key is ErrNotFound and a bad one wraps
// ErrBadKey.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	if err := ValidKey(key); err != nil {
		return nil, 0, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, 0, s.openError(key, err)
	}
	st, err := obj.Stat()
	if err != nil {
		_ = obj.Close()
		return nil, 0, s.openError(key, err)
	}
	return obj, st.Size, nil
}

func (s *S3) openError(key string, err error) error {
	if code := minio.ToErrorResponse(err).Code; code == minio.NoSuchKey || code == "NotFound" {
		return fmt.Errorf("open %s: %w", key, ErrNotFound)
	}
	return fmt.Errorf("filestore: open %s: %w", key, err)
}

// DeletePrefix lists the objects under prefix and removes them in batches.
// Uploads still in progress are not objects yet and are left alone. An
// empty prefix is refused.
func (s *S3) DeletePrefix(ctx context.Context, prefix string) error {
	if err := validPrefix(prefix); err != nil {
		return err
	}
	listCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	listed := s.client.ListObjects(listCtx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true})
	toRemove := make(chan minio.ObjectInfo)
	listDone := make(chan struct{})
	var listErr error
	go func() {
		defer close(listDone)
		defer close(toRemove)
		for obj := range listed { // drained to the end, so the lister stops
			if obj.Err != nil {
				if listErr == nil {
					listErr = obj.Err
				}
				cancel()
			}
			if listErr != nil {
				continue
			}
			select {
			case toRemove <- obj:
			case <-listCtx.Done():
			}
		}
	}()
	var removeErr error
	for e := range s.client.RemoveObjects(listCtx, s.bucket, toRemove, minio.RemoveObjectsOptions{}) {
		if removeErr == nil && e.Err != nil {
			removeErr = fmt.Errorf("remove %s: %w", e.ObjectName, e.Err)
		}
	}
	cancel()
	<-listDone
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("filestore: delete %s: %w", prefix, ctx.Err())
	case listErr != nil:
		return fmt.Errorf("filestore: delete %s: list: %w", prefix, listErr)
	case removeErr != nil:
		return fmt.Errorf("filestore: delete %s: %w", prefix, removeErr)
	}
	return nil
}

// SweepTemp abandons multipart uploads started more than olderThan ago:
// what a writer that died mid-file left behind (they hold storage but no
// object). It returns how many it abandoned. A bucket lifecycle rule
// (AbortIncompleteMultipartUpload) does the same on the server's side.
func (s *S3) SweepTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	core := minio.Core{Client: s.client}
	removed := 0
	for up := range s.client.ListIncompleteUploads(ctx, s.bucket, s.prefix, true) {
		if up.Err != nil {
			return removed, fmt.Errorf("filestore: list uploads: %w", up.Err)
		}
		if up.Initiated.After(cutoff) {
			continue
		}
		if err := core.AbortMultipartUpload(ctx, s.bucket, up.Key, up.UploadID); err != nil {
			if minio.ToErrorResponse(err).Code == minio.NoSuchUpload {
				continue // finished or abandoned meanwhile
			}
			return removed, fmt.Errorf("filestore: abandon upload of %s: %w", up.Key, err)
		}
		removed++
	}
	return removed, ctx.Err()
}

// s3Writer feeds an upload through a pipe.
type s3Writer struct {
	store *S3
	ctx   context.Context // the upload runs across Write calls, for as long as Create's context
	key   string

	started  bool
	finished bool
	pw       *io.PipeWriter
	cancel   context.CancelFunc
	done     chan struct{} // closed when PutObject has returned
	err      error         // PutObject's error, read after done
}

// start begins the upload in the background: always a multipart upload,
// as the length is unknown. minio-go reads a part, uploads it, and
// completes the upload only when the pipe reports a clean end; a pipe
// closed with an error makes it abandon the upload, so nothing appears
// under the key.
func (w *s3Writer) start() {
	w.started = true
	ctx, cancel := context.WithCancel(w.ctx)
	pr, pw := io.Pipe()
	w.pw, w.cancel, w.done = pw, cancel, make(chan struct{})
	s := w.store
	go func() {
		defer close(w.done)
		_, err := s.client.PutObject(ctx, s.bucket, s.prefix+w.key, pr, -1, s.putOptions(w.key))
		w.err = err
		// Unblocks a Write still waiting when the upload failed early.
		_ = pr.CloseWithError(uploadFailed(err))
	}()
}

// Write hands p to the upload, starting it on the first bytes; once the
// upload has failed it returns that failure.
func (w *s3Writer) Write(p []byte) (int, error) {
	if w.finished {
		return 0, fmt.Errorf("filestore: write %s: writer is finished", w.key)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !w.started {
		w.start()
	}
	n, err := w.pw.Write(p)
	if err != nil {
		return n, fmt.Errorf("filestore: write %s: %w", w.key, err)
	}
	return n, nil
}

// Commit ends the stream and waits for the upload to complete (an empty
// file is one plain PUT). If ctx ends first the upload is cancelled and
// Commit fails, unless the upload had completed by then (it is then
// committed and Commit returns nil).
func (w *s3Writer) Commit(ctx context.Context) error {
	if w.finished {
		return fmt.Errorf("filestore: commit %s: writer is finished", w.key)
	}
	if err := ctx.Err(); err != nil {
		w.Abort()
		return fmt.Errorf("filestore: commit %s: %w", w.key, err)
	}
	w.finished = true
	if !w.started {
		s := w.store
		if _, err := s.client.PutObject(ctx, s.bucket, s.prefix+w.key, bytes.NewReader(nil), 0, s.putOptions(w.key)); err != nil {
			return fmt.Errorf("filestore: commit %s: %w", w.key, err)
		}
		return nil
	}
	_ = w.pw.Close()
	select {
	case <-w.done:
	case <-ctx.Done():
		w.cancel()
		<-w.done
	}
	w.cancel()
	if w.err != nil {
		return fmt.Errorf("filestore: commit %s: %w", w.key, w.err)
	}
	return nil
}

// Abort ends the stream with an error, so the upload is abandoned, and
// waits until it is; after Commit or a first Abort it does nothing.
func (w *s3Writer) Abort() {
	if w.finished {
		return
	}
	w.finished = true
	if !w.started {
		return
	}
	_ = w.pw.CloseWithError(errAborted)
	w.cancel()
	<-w.done
}

// contentType guesses a download's type from the key's extension.
func contentType(key string) string {
	switch {
	case strings.HasSuffix(key, ".csv"):
		return "text/csv; charset=utf-8"
	case strings.HasSuffix(key, ".xlsx"):
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case strings.HasSuffix(key, ".pdf"):
		return "application/pdf"
	}
	return "application/octet-stream"
}
