package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/callbacksclient"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/filestore"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
)

// wireFiles serves the export files (docs/contracts-files.md): the calls,
// the export query and download routes in front of the REST mux, the
// retention job and the export workers.
func (g *gateway) wireFiles(ctx context.Context) error {
	store, err := filestore.FromConfig(ctx, g.cfg.fileStore())
	if err != nil {
		return fmt.Errorf("export file store: %w", err)
	}
	sweeper, ok := store.(export.TempSweeper)
	if !ok {
		return fmt.Errorf("export file store %T cannot sweep its temporary files", store)
	}
	rows := postgres.NewFiles(g.Pool).WithReads(g.ReadPool)
	files := export.NewService(rows, store, time.Now)
	g.srv.Register(&gatewayv1.FileService_ServiceDesc, grpcapi.NewFileServer(files))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterFileServiceHandlerClient, gatewayv1.NewFileServiceClient))
	// The download route writes a file's bytes itself (httpapi.Download).
	g.srv.Handle(httpapi.ExportPattern, httpapi.ExportQuery(g.viaREST()))
	g.srv.Handle(httpapi.DownloadPattern, httpapi.Download(g.restMux.Load,
		func() grpc.ClientConnInterface { return g.restConn.Load().(grpc.ClientConnInterface) }))
	if err := g.Jobs.Add(export.RetentionJob(files, sweeper, g.tunables.ExportRetention, g.cfg.FilesRetentionInterval)); err != nil {
		return err
	}
	// The export workers consume the export requests outside the jobs
	// runner, on every replica: the runner runs a job on one replica at a
	// time, and files are written in parallel.
	if g.cfg.FilesWorkers == 0 {
		return nil
	}
	host, _ := os.Hostname()
	logger := g.Log.With("component", "export-worker")
	worker := export.NewWorker(rows, store, callbacksclient.NewAttempts(g.callbacksConn, g.internalToken, 30*time.Second), time.Now,
		export.WorkerOptions{Name: fmt.Sprintf("%s:%d", host, os.Getpid()), Lease: g.cfg.FilesLease,
			RowsPerSecond: g.cfg.FilesRowsPerSecond, Logger: logger})
	g.Go(func(ctx context.Context) error {
		return gwnats.RunFileExports(ctx, g.JetStream, g.cfg.Schema, worker, gwnats.ExportOptions{Workers: g.cfg.FilesWorkers, Logger: logger})
	})
	return nil
}

// fileStore is the export file store's configuration: S3 when an endpoint
// is set, the local directory otherwise.
func (c Config) fileStore() filestore.Config {
	return filestore.Config{Dir: c.FilesDir, S3: filestore.S3Config{
		Endpoint: c.FilesS3Endpoint, Bucket: c.FilesS3Bucket, Region: c.FilesS3Region,
		AccessKey: c.FilesS3AccessKey, SecretKey: c.FilesS3SecretKey, UseSSL: c.FilesS3UseSSL,
		Insecure: c.FilesS3Insecure, Prefix: c.FilesS3Prefix, CreateBucket: c.FilesS3CreateBucket}}
}
