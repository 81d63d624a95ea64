// Command pulumi-language-nodejs is a minimal Node.js language host for the Pulumi engine.
//
// Why it exists: Pulumi's own host lives in the untagged module
// github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, which the Go module proxy
// reachable from these machines does not serve (every pseudo-version answers 403
// "This module version is not available"). The engine itself (pkg/v3/cmd/pulumi) is served and
// built as is. This host implements the LanguageRuntime gRPC contract from Pulumi's Go SDK
// (sdk/v3/proto/go) and hands the program to Pulumi's own Node.js runner,
// @pulumi/pulumi/cmd/run, exactly as the real host does: same flags, same environment, same
// exit-code convention. Only what `pulumi up/preview/refresh/destroy` needs is implemented; a
// real pulumi-language-nodejs found on PATH takes precedence (see scripts/bootstrap.sh).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "0.0.0-dev"

// bailExitCode is what @pulumi/pulumi/cmd/run exits with after it has already reported the
// error to the engine; the engine must not print a second, less useful error.
const bailExitCode = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	programs      *programGroups
}

// programGroups are the process groups of the node programs this host is running. Each program
// gets its own group so that everything it starts can be killed with it: a program left behind
// by a dead engine would keep its CPU, memory and API connections for nothing.
type programGroups struct {
	mu   sync.Mutex
	pids map[int]struct{}
}

func (g *programGroups) add(pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pids[pid] = struct{}{}
}

func (g *programGroups) remove(pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pids, pid)
}

func (g *programGroups) killAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for pid := range g.pids {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func (h *host) Handshake(
	_ context.Context, _ *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

// A dynamic provider needs no plugin download: its binary is the launcher beside the CLI.
func (h *host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	programDir, entry := req.GetPwd(), "."
	if info := req.GetInfo(); info != nil {
		programDir = info.GetProgramDirectory()
		if info.GetEntryPoint() != "" {
			entry = info.GetEntryPoint()
		}
	}
	runner, err := resolveRunner(programDir)
	if err != nil {
		return nil, err
	}

	args := []string{
		runner,
		"--monitor", req.GetMonitorAddress(),
		"--engine", h.engineAddress,
		"--project", req.GetProject(),
		"--stack", req.GetStack(),
		"--pwd", req.GetPwd(),
		"--parallel", strconv.Itoa(int(req.GetParallel())),
	}
	if req.GetOrganization() != "" {
		args = append(args, "--organization", req.GetOrganization())
	}
	if info := req.GetInfo(); info != nil && info.GetRootDirectory() != "" {
		args = append(args, "--root-directory", info.GetRootDirectory())
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	env, err := programEnv(req)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = programDir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A cancelled Run (the engine hung up) kills the program's whole group, not just node.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start node: %v", err)}, nil
	}
	h.programs.add(cmd.Process.Pid)
	err = cmd.Wait()
	h.programs.remove(cmd.Process.Pid)
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if exitErr.ExitCode() == bailExitCode {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{
				Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exitErr.ExitCode()),
			}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("could not start node: %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// programEnv passes configuration the way the real host does: as JSON in PULUMI_CONFIG and
// PULUMI_CONFIG_SECRET_KEYS, never on the command line where `ps` would show secrets.
func programEnv(req *pulumirpc.RunRequest) ([]string, error) {
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, err
	}
	secretKeys, err := json.Marshal(req.GetConfigSecretKeys())
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
	)
	if typescriptEnabled(req) {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	return env, nil
}

// typescriptEnabled follows the runtime option `typescript` (default true, as in Pulumi's host).
func typescriptEnabled(req *pulumirpc.RunRequest) bool {
	if info := req.GetInfo(); info != nil && info.GetOptions() != nil {
		if v, ok := info.GetOptions().AsMap()["typescript"].(bool); ok {
			return v
		}
	}
	return true
}

// resolveRunner finds the program's own @pulumi/pulumi/cmd/run, walking up from the program
// directory as Node's module resolution would.
func resolveRunner(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		candidate := filepath.Join(d, "node_modules", "@pulumi", "pulumi", "cmd", "run")
		if _, err := os.Stat(filepath.Join(candidate, "index.js")); err == nil {
			return candidate, nil
		}
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	return "", fmt.Errorf("@pulumi/pulumi is not installed for the program in %s: run `npm install` there", abs)
}

func main() {
	// The engine passes flags (e.g. -root, -tracing) and then its own address as the last argument.
	engineAddress := ""
	for _, a := range os.Args[1:] {
		if !strings.HasPrefix(a, "-") {
			engineAddress = a
		}
	}
	programs := &programGroups{pids: map[int]struct{}{}}
	// The engine starts this host in a process group of its own, so a killed engine does not take
	// it along: without this the host and its program would run on after every crashed `up`.
	go exitWhenEngineIsGone(engineAddress, programs)
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(s *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(s, &host{engineAddress: engineAddress, programs: programs})
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
}

// engineWatchInterval is how often the host checks that the engine is still there.
const engineWatchInterval = time.Second

// exitWhenEngineIsGone kills the running programs' groups and exits once the engine has gone:
// either this process was re-parented (the engine was its parent and died), or the engine's
// gRPC health check fails.
func exitWhenEngineIsGone(engineAddress string, programs *programGroups) {
	gone := make(chan struct{})
	var once sync.Once
	signalGone := func() { once.Do(func() { close(gone) }) }
	if engineAddress != "" {
		if err := rpcutil.Healthcheck(context.Background(), engineAddress, engineWatchInterval, signalGone); err != nil {
			fmt.Fprintf(os.Stderr, "warning: cannot watch the engine at %s: %v\n", engineAddress, err)
		}
	}
	parent := os.Getppid()
	ticker := time.NewTicker(engineWatchInterval)
	defer ticker.Stop()
	for {
		select {
		case <-gone:
		case <-ticker.C:
			if os.Getppid() == parent {
				continue
			}
		}
		programs.killAll()
		os.Exit(1)
	}
}
