package sshtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowdeck/flowdeck/internal/sshtest"
	"github.com/flowdeck/flowdeck/internal/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// Each word of a remote command arrives as one argument, whatever it
// holds, and the server's SetEnv reaches the remote's environment.
func TestCommandQuotingAndEnv(t *testing.T) {
	srv := sshtest.Start(t, "SSHTEST_VAR=a b")
	argv := srv.Command("printf", "%s|", "$SSHTEST_VAR", "it's", "a  b", "", "*", "x;y")
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if want := "$SSHTEST_VAR|it's|a  b||*|x;y|"; err != nil || string(out) != want {
		t.Fatalf("%v: %v %q, want %q\nsshd: %s", argv, err, out, want, srv.Log())
	}
	argv = srv.Command("sh", "-c", `printf %s "$SSHTEST_VAR"`)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil || string(out) != "a b" {
		t.Fatalf("%v: %v %q, want the server's SetEnv value", argv, err, out)
	}
}

// `flowdeck --dir D mcp` served through the SSH server answers an MCP
// client as a local one does; a killed connection ends the client's
// session and the server takes the next; a stopped host refuses, and a
// restarted one serves again.
func TestMCPThroughSSH(t *testing.T) {
	bin, err := testbin.Build(testbin.Flowdeck, testbin.MCP)
	if err != nil {
		t.Fatal(err)
	}
	// The remote runs in sshd's environment, not the test's: its user
	// config comes from a temp dir, and the project's path needs quoting.
	srv := sshtest.Start(t, "XDG_CONFIG_HOME="+t.TempDir())
	project := filepath.Join(t.TempDir(), "the project's dir")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "--dir", project, "flow", "plan", "start", "served over ssh").CombinedOutput(); err != nil {
		t.Fatalf("flow plan start: %v\n%s", err, out)
	}
	// The remote's PATH does not hold the test's build: the absolute path.
	remote := srv.Command(bin, "--dir", project, "mcp")

	cs := connect(t, remote)
	res, err := cs.ListTools(ctxT(t), nil)
	if err != nil {
		t.Fatalf("tools/list over ssh: %v\nsshd: %s", err, srv.Log())
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "flow_status") || !slices.Contains(names, "flow_review_record_feature") {
		t.Fatalf("tools over ssh: %v", names)
	}
	goalOverSSH(t, cs, "served over ssh")
	if n := srv.Connections(); n != 1 {
		t.Fatalf("%d connections on the server, want the client's one", n)
	}

	// A frozen connection stays up and answers nothing: a call times out;
	// new connections are served meanwhile; thawed, it answers again.
	thaw := srv.FreezeConnections()
	short, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_, err = cs.CallTool(short, &sdk.CallToolParams{Name: "flow_status"})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call on a frozen connection: %v, want it to time out", err)
	}
	goalOverSSH(t, connect(t, remote), "served over ssh")
	thaw()
	goalOverSSH(t, cs, "served over ssh")

	// A dropped connection ends the session (the client sees its
	// transport close); the listener stays and serves a new one.
	if n := srv.KillConnections(); n == 0 {
		t.Fatal("KillConnections killed nothing")
	}
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the client's session outlived its killed connection by a minute")
	}
	if n := srv.Connections(); n != 0 {
		t.Fatalf("%d connections left after KillConnections", n)
	}
	if _, err := cs.CallTool(ctxT(t), &sdk.CallToolParams{Name: "flow_status"}); err == nil {
		t.Fatal("a call on the killed connection succeeded")
	}
	goalOverSSH(t, connect(t, remote), "served over ssh")

	// A stopped host refuses connections (ssh exits 255); restarted on
	// the same port with the same keys, it serves again.
	srv.Stop()
	probe := srv.Command("true")
	if out, err := exec.Command(probe[0], probe[1:]...).CombinedOutput(); err == nil {
		t.Fatalf("ssh to a stopped server succeeded: %s", out)
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 255 {
		t.Fatalf("ssh to a stopped server: %v %s, want exit 255", err, out)
	}
	srv.Restart()
	goalOverSSH(t, connect(t, remote), "served over ssh")
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// connect starts argv (an ssh client running `flowdeck … mcp`) and
// initializes an MCP session on its stdio.
func connect(t *testing.T, argv []string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "sshtest", Version: "1"}, nil)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	cs, err := client.Connect(ctxT(t), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("MCP over %v: %v", argv, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// goalOverSSH calls flow_status and checks that the session is the
// project's (its goal), so the call reached that project's store.
func goalOverSSH(t *testing.T, cs *sdk.ClientSession, goal string) {
	t.Helper()
	res, err := cs.CallTool(ctxT(t), &sdk.CallToolParams{Name: "flow_status"})
	if err != nil {
		t.Fatalf("flow_status over ssh: %v", err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var st struct {
		OK      bool `json:"ok"`
		Session struct {
			Goal string `json:"goal"`
		} `json:"session"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || res.IsError || !st.OK || st.Session.Goal != goal {
		t.Fatalf("flow_status over ssh: %s (%v), want goal %q", raw, err, goal)
	}
}
