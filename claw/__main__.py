from claw.cli.app import main

main()
