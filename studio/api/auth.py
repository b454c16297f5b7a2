"""Authentication endpoints: session login/logout for the browser, named tokens for scripts."""
from __future__ import annotations

from django.contrib.auth import authenticate, login, logout
from django.middleware.csrf import get_token
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.api.exceptions import LoginFailed
from studio.api.parsers import BoundedJSONParser
from studio.api.schema import errors, responses
from studio.api.serializers.auth import LoginSerializer, NewTokenSerializer, TokenSerializer, UserSerializer
from studio.api.throttling import LoginThrottle
from studio.models import ApiToken


class LoginView(APIView):
    """Start a browser session; also sets the ``csrftoken`` cookie that unsafe requests echo in X-CSRFToken."""

    authentication_classes = []
    permission_classes = [AllowAny]
    parser_classes = [BoundedJSONParser]  # JSON only: a cross-site HTML form cannot post JSON, no login CSRF
    throttle_classes = [LoginThrottle]

    @extend_schema(summary="Log in (session cookie + csrftoken cookie)", request=LoginSerializer,
                   responses={200: UserSerializer, **errors(400, 401, 429)}, auth=[])
    def post(self, request):
        body = LoginSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = authenticate(request._request, username=body.validated_data["username"],
                            password=body.validated_data["password"])
        if user is None:
            raise LoginFailed()
        login(request._request, user)
        get_token(request._request)
        return Response(UserSerializer(user).data)


class LogoutView(APIView):
    @extend_schema(summary="Log out (ends the session)", request=None, responses=responses({204: None}))
    def post(self, request):
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    @extend_schema(summary="The authenticated user", responses=responses({200: UserSerializer}))
    def get(self, request):
        get_token(request._request)  # so a reloaded page has its csrftoken cookie
        return Response(UserSerializer(request.user).data)


@extend_schema_view(
    list=extend_schema(summary="Your API tokens (without their keys)", responses=responses({200: TokenSerializer(many=True)})),
    create=extend_schema(summary="Create a token; its key is in this answer only", request=TokenSerializer,
                         responses=responses({201: NewTokenSerializer})),
    destroy=extend_schema(summary="Revoke a token", responses=responses({204: None}, 404)),
)
class TokenViewSet(mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Named tokens for scripts: ``Authorization: Token <key>``."""

    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        return ApiToken.objects.filter(user=self.request.user)

    def get_serializer_class(self):
        return NewTokenSerializer if self.action == "create" else TokenSerializer

    def perform_create(self, serializer):
        token, key = ApiToken.issue(self.request.user, serializer.validated_data["name"])
        token.key = key
        serializer.instance = token
