package grpcapi

import (
	"context"
	"errors"
	"io"
	"mime"
	"strconv"

	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/paging"
)

// fileServer serves FileService: export types, export requests and the
// files they make (docs/contracts-files.md).
type fileServer struct {
	gatewayv1.UnimplementedFileServiceServer
	files *export.Service
}

var _ gatewayv1.FileServiceServer = (*fileServer)(nil)

// NewFileServer returns the FileService implementation.
func NewFileServer(files *export.Service) gatewayv1.FileServiceServer {
	return &fileServer{files: files}
}

// DownloadChunk is the size of the data of each DownloadFile message.
const DownloadChunk = 64 << 10

func exportTypeToProto(ti export.TypeInfo) *gatewayv1.ExportType {
	t := &gatewayv1.ExportType{Type: int32(ti.Type), Name: ti.Name, Description: ti.Description,
		AvailableColumns: map[string]string{}}
	for _, c := range ti.Columns {
		t.AvailableColumns[c.Field] = c.Name
		t.Columns = append(t.Columns, &gatewayv1.ExportColumn{Field: c.Field, Name: c.Name})
	}
	return t
}

// ListExportTypes implements gatewayv1.FileServiceServer.
func (s *fileServer) ListExportTypes(context.Context, *gatewayv1.ListExportTypesRequest) (*gatewayv1.ListExportTypesResponse, error) {
	resp := &gatewayv1.ListExportTypesResponse{}
	for _, ti := range export.Types() {
		resp.Types = append(resp.Types, exportTypeToProto(ti))
	}
	return resp, nil
}

// GetExportColumns implements gatewayv1.FileServiceServer.
func (s *fileServer) GetExportColumns(_ context.Context, req *gatewayv1.GetExportColumnsRequest) (*gatewayv1.GetExportColumnsResponse, error) {
	ti, ok := export.TypeOf(export.Type(req.GetType()))
	if !ok {
		return nil, apperr.NotFound("Export type %d was not found: the types are 1 (Transactions), 3 (Transaction logs) and 4 (Callback attempts).", req.GetType())
	}
	t := exportTypeToProto(ti)
	return &gatewayv1.GetExportColumnsResponse{Type: t.Type, AvailableColumns: t.AvailableColumns, Columns: t.Columns}, nil
}

// ExportFile implements gatewayv1.FileServiceServer.
func (s *fileServer) ExportFile(ctx context.Context, req *gatewayv1.ExportFileRequest) (*gatewayv1.ExportFileResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	fl, st := req.GetFilter(), req.GetSettings()
	statuses := make([]string, 0, len(fl.GetStatuses()))
	for _, x := range fl.GetStatuses() {
		statuses = append(statuses, strconv.Itoa(int(x)))
	}
	f, err := s.files.Export(ctx, actor, export.ExportInput{
		CollabID: req.GetCollabId(),
		Filter: export.Filter{
			Type: fl.GetType(), Statuses: statuses, ProviderTID: fl.GetProviderTid(), MerchantCID: fl.GetMerchantCid(),
			Nonce: fl.GetNonce(), From: fl.GetFrom(), To: fl.GetTo(), MinAmount: fl.GetMinAmount(), MaxAmount: fl.GetMaxAmount(),
			Currency: fl.GetCurrency(), PaymentMethodValue: fl.GetPaymentMethodValue(), PaymentMethodType: fl.GetPaymentMethodType(),
			PaymentIP: fl.GetPaymentIpAddress(),
		},
		Type: st.GetExportType(), Format: st.GetFileType(), Columns: st.GetColumns(), Order: st.GetColumnOrder(),
		TimeZone: st.GetTimeZone(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ExportFileResponse{Id: f.ID}, nil
}

// viewerOf is the signed-in caller as a viewer of files.
func viewerOf(ctx context.Context) (export.Viewer, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return export.Viewer{}, err
	}
	return export.Viewer{UserID: actor.UserID, Scope: actor.Scope}, nil
}

// ListFiles implements gatewayv1.FileServiceServer.
func (s *fileServer) ListFiles(ctx context.Context, req *gatewayv1.ListFilesRequest) (*gatewayv1.ListFilesResponse, error) {
	v, err := viewerOf(ctx)
	if err != nil {
		return nil, err
	}
	page, take, err := paging.Resolve(req.Page, req.Take, export.DefaultTake, export.MaxTake)
	if err != nil {
		return nil, err
	}
	p, err := s.files.List(ctx, v, int(page), int(take))
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListFilesResponse{Files: make([]*gatewayv1.File, 0, len(p.Files)), TotalCount: p.TotalCount,
		CurrentPage: page, TotalPages: int32((p.TotalCount + int64(take) - 1) / int64(take))}
	for _, f := range p.Files {
		resp.Files = append(resp.Files, fileToProto(f, false))
	}
	return resp, nil
}

// GetFileInfo implements gatewayv1.FileServiceServer.
func (s *fileServer) GetFileInfo(ctx context.Context, req *gatewayv1.GetFileInfoRequest) (*gatewayv1.GetFileInfoResponse, error) {
	v, err := viewerOf(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.files.Get(ctx, v, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetFileInfoResponse{File: fileToProto(f, true)}, nil
}

// Metadata of a DownloadFile answer, which the gateway's REST handler turns
// into headers: httpapi.ContentDispositionMetadata and
// httpapi.ContentLengthMetadata.
const (
	ContentDispositionMetadata = "content-disposition"
	ContentLengthMetadata      = "x-content-length"
)

// DownloadFile implements gatewayv1.FileServiceServer: the header metadata
// carries the Content-Disposition and the length, the first message the
// content type, and the messages the bytes in chunks of DownloadChunk.
func (s *fileServer) DownloadFile(req *gatewayv1.DownloadFileRequest, stream grpc.ServerStreamingServer[httpbody.HttpBody]) error {
	ctx := stream.Context()
	v, err := viewerOf(ctx)
	if err != nil {
		return err
	}
	f, r, size, err := s.files.Open(ctx, v, req.GetId())
	if err != nil {
		return err
	}
	defer r.Close()
	disposition := mime.FormatMediaType("attachment", map[string]string{"filename": f.Name})
	if err := stream.SetHeader(metadata.Pairs(ContentDispositionMetadata, disposition,
		ContentLengthMetadata, strconv.FormatInt(size, 10))); err != nil {
		return err
	}
	contentType := f.Request.Format.ContentType()
	buf := make([]byte, DownloadChunk)
	sent := false
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 || !sent {
			msg := &httpbody.HttpBody{Data: buf[:n]}
			if !sent {
				msg.ContentType = contentType
			}
			if err := stream.Send(msg); err != nil {
				return err
			}
			sent = true
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// DeleteFile implements gatewayv1.FileServiceServer.
func (s *fileServer) DeleteFile(ctx context.Context, req *gatewayv1.DeleteFileRequest) (*gatewayv1.DeleteFileResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.files.Delete(ctx, actor, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.DeleteFileResponse{File: fileToProto(f, false)}, nil
}

func fileToProto(f export.File, withManifest bool) *gatewayv1.File {
	p := &gatewayv1.File{
		Id: f.ID, Name: f.Name, Status: int32(f.Status), FileType: int32(f.Request.Format), ExportType: int32(f.Request.Type),
		CreatedUtc: timestamppb.New(f.CreatedAt), UpdatedUtc: timestamppb.New(f.UpdatedAt), FileSizeBytes: f.SizeBytes,
		StatusMessage: f.StatusMessage, RecordCount: f.RecordCount, Filters: jsonStruct(f.FilterView()),
		ErrorMessage: f.ErrorMessage, CollabId: f.Request.CollabID, CreatedBy: f.CreatedBy,
	}
	if withManifest && f.Manifest != nil {
		m := f.Manifest
		p.Manifest = &gatewayv1.FileManifest{Filter: jsonStruct(m.Filter), RowCount: m.RowCount, ByteSize: m.ByteSize,
			Sha256: m.SHA256, CreatedUtc: timestamppb.New(m.CreatedUTC), FinishedUtc: timestamppb.New(m.FinishedUTC)}
		for _, c := range m.Columns {
			p.Manifest.Columns = append(p.Manifest.Columns, &gatewayv1.ExportColumn{Field: c.Field, Name: c.Name})
		}
	}
	return p
}
