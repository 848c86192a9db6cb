// Package natsembed runs a NATS server with JetStream inside the process: the
// local stack launcher uses it when no PAYGATE_NATS_URL is given, and tests
// use it for an isolated stream.
package natsembed

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start runs a JetStream-enabled NATS server that stores its data under dir
// and listens on host:port (port -1 picks a free one). It returns the client
// URL and a shutdown function that stops the server and waits for it.
func Start(dir, host string, port int) (clientURL string, shutdown func(), err error) {
	opts := &server.Options{
		ServerName: "paygate-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return "", nil, fmt.Errorf("embedded nats: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return "", nil, fmt.Errorf("embedded nats on %s:%d: not ready after 10s", host, port)
	}
	return ns.ClientURL(), func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	}, nil
}
