package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flowdeck/flowdeck/config"
	"github.com/flowdeck/flowdeck/patterns"
)

func (e *env) configCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "The configuration in effect: yours and the project's .flow/config.toml",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the merged configuration and where each value came from",
		Long: `Print the configuration in effect: your config file ($FLOWDECK_CONFIG, else
$XDG_CONFIG_HOME/flowdeck/config.toml) with the project's .flow/config.toml
merged over it, one value a line, each with the file and line that set it
or "default". Its problems go to stderr (and "errors" in --json); a value
that looks like a secret is shown redacted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := e.project()
			if err != nil {
				return err
			}
			cfg := p.Config()
			red, err := p.Redactor()
			if err != nil {
				red, _ = patterns.NewRedactor(nil) // the built-ins still hide what they know
			}
			settings := cfg.Settings(red.Command)
			userPath := cfg.Path
			if userPath == "" {
				if userPath = os.Getenv("FLOWDECK_CONFIG"); userPath == "" {
					userPath = config.DefaultPath()
				}
			}
			projPath := filepath.Join(p.Root(), filepath.FromSlash(config.ProjectFile))
			if e.json {
				errs := []string{}
				for _, err := range p.ConfigErrors() {
					errs = append(errs, err.Error())
				}
				return e.writeJSON(map[string]any{"ok": true, "settings": settings, "errors": errs,
					"files": map[string]any{"user": fileState(userPath, cfg.Path != ""), "project": fileState(projPath, cfg.ProjectPath != "")}})
			}
			fmt.Fprintf(e.stdout, "# user:    %s%s\n", userPath, missing(cfg.Path != ""))
			fmt.Fprintf(e.stdout, "# project: %s%s\n", projPath, missing(cfg.ProjectPath != ""))
			for _, s := range settings {
				v, _ := json.Marshal(s.Value)
				from := []string{}
				for _, o := range s.From {
					from = append(from, o.String())
				}
				if len(from) == 0 {
					from = []string{"default"}
				}
				fmt.Fprintf(e.stdout, "%s = %s  # %s\n", s.Key, v, strings.Join(from, ", "))
			}
			return nil
		},
	})
	return c
}

func fileState(path string, read bool) map[string]any {
	return map[string]any{"path": path, "read": read}
}

func missing(read bool) string {
	if read {
		return ""
	}
	return " (not used: none there, or see the errors)"
}
