// upstream-cluster is a Kubernetes 1.37.2 control plane in one program, for
// testing the tools against the real API server, scheduler and controllers.
// It is a multi-call binary: the first argument (or the name it is run under)
// picks the component, and each component runs in a process of its own,
// started and stopped by tests/upstream/cluster.sh:
//
//	upstream-cluster etcd DATADIR CLIENTURL PEERURL  embedded etcd (go.etcd.io/etcd/server/v3/embed)
//	upstream-cluster kube-apiserver FLAGS...          k8s.io/kubernetes/cmd/kube-apiserver/app
//	upstream-cluster kube-scheduler FLAGS...          k8s.io/kubernetes/cmd/kube-scheduler/app
//	upstream-cluster kube-controller-manager FLAGS... k8s.io/kubernetes/cmd/kube-controller-manager/app
//	upstream-cluster kubectl ARGS...                  k8s.io/kubectl/pkg/cmd (also when run as "kubectl")
//	upstream-cluster ports N                          N free loopback TCP ports, one a line
//	upstream-cluster informer --kubeconfig F [--events N]  a client-go informer on ResourceSlices
//	                                                  (informer.go: the watch benchmark's peer)
//
// The components are not run in one process because each registers its
// metrics in the process-wide legacy registry and its flags and klog settings
// globally; the upstream binaries are separate processes too.
package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: upstream-cluster etcd|kube-apiserver|kube-scheduler|kube-controller-manager|kubectl|ports|informer ARGS...")
	os.Exit(2)
}

func main() {
	name := filepath.Base(os.Args[0])
	if name != "kubectl" {
		if len(os.Args) < 2 {
			usage()
		}
		name = os.Args[1]
		os.Args = append([]string{name}, os.Args[2:]...)
	}
	switch name {
	case "etcd":
		os.Exit(runEtcd(os.Args[1:]))
	case "ports":
		os.Exit(freePorts(os.Args[1:]))
	case "informer":
		os.Exit(runInformer(os.Args[1:]))
	case "kube-apiserver":
		os.Exit(cli.Run(apiserver.NewAPIServerCommand()))
	case "kube-scheduler":
		os.Exit(cli.Run(scheduler.NewSchedulerCommand()))
	case "kube-controller-manager":
		os.Exit(cli.Run(controllermanager.NewControllerManagerCommand()))
	case "kubectl":
		logs.GlogSetter(kubectlcmd.GetLogVerbosity(os.Args)) // nolint:errcheck
		if err := cli.RunNoErrOutput(kubectlcmd.NewDefaultKubectlCommand()); err != nil {
			kubectlutil.CheckErr(err)
		}
	default:
		usage()
	}
}

// freePorts prints n distinct loopback ports that were free a moment ago:
// all n listeners are held open together so that no port repeats.
func freePorts(args []string) int {
	n := 1
	if len(args) == 1 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
			usage()
		}
	}
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "upstream-cluster ports:", err)
			return 3
		}
		ls = append(ls, l)
	}
	for _, l := range ls {
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		l.Close()
	}
	return 0
}

// runEtcd runs a single-member etcd on loopback until SIGTERM or SIGINT.
func runEtcd(args []string) int {
	if len(args) != 3 {
		usage()
	}
	client, err := url.Parse(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd: client URL:", err)
		return 2
	}
	peer, err := url.Parse(args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd: peer URL:", err)
		return 2
	}
	cfg := embed.NewConfig()
	cfg.Name = "upstream-cluster"
	cfg.Dir = args[0]
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.LogLevel = "warn"
	cfg.UnsafeNoFsync = true // test data only: start-up in seconds
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 3
	}
	defer e.Close()
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "etcd: not ready after 60s")
		return 3
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
		return 0
	case err := <-e.Err():
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 3
	}
}
