"""The run-events pane: a timeline of lifecycle, tool and failover events."""
