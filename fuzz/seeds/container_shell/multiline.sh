while true
do
  echo "$(date) $HOSTNAME"
  sleep 5
done
